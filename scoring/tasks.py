"""Celery tasks of scoring: take the job's id, call the coordinator."""

from __future__ import annotations

from foundation.sending import job_task, worker_name
from scoring import coordinator


# Scoring a training step's programs measures them: it runs where timing jobs run.
@job_task(
    "scoring.score_rollouts",
    job_model="workers.ScoringJob",
    acked_at_end=True,
    aliases=("workers.score_rollouts",),
)
def score_rollouts(self, job_id: int) -> str:
    return coordinator.do_score_rollouts(job_id, worker_name(self))


# An offer of one group of a scoring job to an idle timing worker (coordinator.do_score_part):
# a part another worker took is skipped, so extra deliveries cost nothing.
@job_task("scoring.score_part", acked_at_end=True, aliases=("workers.score_part",))
def score_part(self, job_id: int, index: int) -> str:
    return coordinator.do_score_part(job_id, index, worker_name(self))
