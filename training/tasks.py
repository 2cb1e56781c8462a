"""Celery task of training: take the run's id, call one service."""

from __future__ import annotations

from foundation.sending import job_task, worker_name
from training import lease
from training import services as training_services


# Training runs one task per GPU (or one CPU worker) on the `gpu` queue. Acknowledged after it
# ends: a worker that dies hands the task back and the run resumes from its last checkpoint.
@job_task("training.train", acked_at_end=True, aliases=("workers.train",))
def train(self, run_id: int) -> str:
    try:
        return training_services.do_run_training(run_id, worker_name(self))
    except lease.RunBusy as busy:
        # another delivery trains it; come back when its lease would have gone stale
        raise self.retry(exc=busy, countdown=lease.LEASE_STALE_S, max_retries=None) from busy
