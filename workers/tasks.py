"""Celery tasks: take ids, load, call one service, store."""

from __future__ import annotations

from celery import shared_task

from codeopt_site.jobs import job_task, worker_name
from workers import demo
from workers.process import heartbeat, pinning  # noqa: F401  (signal handlers)
from workers.timing import services as timing_services
from workers.training import lease, remote
from workers.training import services as training_services


@shared_task(name="workers.replay_synthetic_run")
def replay_synthetic_run(run_id: int, api_url: str, total_steps: int = 600, interval: float = 0.5):
    return demo.do_replay_synthetic_run(run_id, api_url, total_steps, interval)


@shared_task(name="workers.ping")
def ping() -> str:
    return "pong"


# Acknowledged after it ends: a worker that dies mid-job hands the message back, and the
# job restarts clean (codeopt_site.jobs.claim); one that finished is not run twice.
@job_task("workers.run_timing_job", job_model="workers.TimingJob", acked_at_end=True)
def run_timing_job(self, job_id: str) -> str:
    return timing_services.do_run_timing_job(job_id, worker_name(self))


# Training runs one task per GPU (or one CPU worker) on the `gpu` queue. Acknowledged after it
# ends: a worker that dies hands the task back and the run resumes from its last checkpoint.
@job_task("workers.train", acked_at_end=True)
def train(self, run_id: int) -> str:
    try:
        return training_services.do_run_training(run_id, worker_name(self))
    except lease.RunBusy as busy:
        # another delivery trains it; come back when its lease would have gone stale
        raise self.retry(exc=busy, countdown=lease.LEASE_STALE_S, max_retries=None) from busy


# Scoring a training step's programs measures them: it runs where timing jobs run.
@job_task("workers.score_rollouts", job_model="workers.ScoringJob", acked_at_end=True)
def score_rollouts(self, job_id: int) -> str:
    return remote.do_score_rollouts(job_id, worker_name(self))


# An offer of one group of a scoring job to an idle timing worker (remote.do_score_part):
# a part another worker took is skipped, so extra deliveries cost nothing.
@job_task("workers.score_part", acked_at_end=True)
def score_part(self, job_id: int, index: int) -> str:
    return remote.do_score_part(job_id, index, worker_name(self))
