"""Celery tasks of problems: take ids, call one service. Each is named after its app; its
former name ("workers.<task>") stays registered as an alias for one release."""

from __future__ import annotations

from foundation.sending import job_task, worker_name
from problems.services import do_run_build


# A build measures programs, so it runs where timing jobs run (one at a time per worker).
@job_task(
    "problems.run_dataset_build",
    job_model="problems.DatasetBuild",
    aliases=("workers.run_dataset_build",),
)
def run_dataset_build(self, build_id: int) -> str:
    return do_run_build(build_id, worker=worker_name(self)).status
