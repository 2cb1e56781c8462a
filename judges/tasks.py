"""Celery tasks of judges: take ids, call one service. Each is named after its app; its
former name ("workers.<task>") stays registered as an alias for one release."""

from __future__ import annotations

from foundation.sending import job_task, worker_name
from judges.services import do_run_batch


# Speedup-source judging (queue `judge`): the analyzer, and the LLM judge, which mostly waits
# on its endpoint.
@job_task("judges.judge", job_model="judges.JudgeBatch", aliases=("workers.judge",))
def judge(self, batch_id: int) -> str:
    return do_run_batch(batch_id, worker=worker_name(self))
