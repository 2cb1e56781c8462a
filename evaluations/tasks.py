"""Celery task of evaluations: take the evaluation's id, call one service."""

from __future__ import annotations

from evaluations.services import do_run_evaluation
from foundation.sending import job_task, worker_name


# An evaluation generates (queue `gpu`, where models run) or only scores uploaded programs
# (queue `timing`); evaluations.services.do_create_evaluation chooses. Acknowledged after it
# ends: a worker that dies hands it back, and it starts over.
@job_task(
    "evaluations.evaluate",
    job_model="evaluations.Evaluation",
    acked_at_end=True,
    aliases=("workers.evaluate",),
)
def evaluate(self, evaluation_id: int) -> str:
    return do_run_evaluation(evaluation_id, worker_name(self))
