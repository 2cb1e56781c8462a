"""Celery task of timing: take the job's id, call one service."""

from __future__ import annotations

from foundation.sending import job_task, worker_name
from timing import services as timing_services


# Acknowledged after it ends: a worker that dies mid-job hands the message back, and the
# job restarts clean (foundation.jobs.claim); one that finished is not run twice.
@job_task(
    "timing.run_timing_job",
    job_model="workers.TimingJob",
    acked_at_end=True,
    aliases=("workers.run_timing_job",),
)
def run_timing_job(self, job_id: str) -> str:
    return timing_services.do_run_timing_job(job_id, worker_name(self))
