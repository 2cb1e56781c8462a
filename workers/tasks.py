"""Celery tasks: take ids, load, call one service, store."""

from __future__ import annotations

import socket

from celery import shared_task

from workers import heartbeat, pinning, services  # noqa: F401  (signal handlers)


@shared_task(name="workers.replay_synthetic_run")
def replay_synthetic_run(run_id: int, api_url: str, total_steps: int = 600, interval: float = 0.5):
    return services.do_replay_synthetic_run(run_id, api_url, total_steps, interval)


@shared_task(name="workers.ping")
def ping() -> str:
    return "pong"


# Acknowledged after it ends: a worker that dies mid-job hands the message back, and the
# job restarts clean (services._claim); one that finished is not run twice.
@shared_task(bind=True, name="workers.run_timing_job", acks_late=True, reject_on_worker_lost=True)
def run_timing_job(self, job_id: str) -> str:
    return services.do_run_timing_job(job_id, self.request.hostname or socket.gethostname())


# A build measures programs, so it runs where timing jobs run (one at a time per worker).
@shared_task(name="workers.run_dataset_build")
def run_dataset_build(build_id: int) -> str:
    from problems.services import do_run_build

    return do_run_build(build_id).status


# The simulator is numpy on stored runtimes: no measurement, so the default queue.
@shared_task(name="workers.run_reward_simulation")
def run_reward_simulation(simulation_id: int) -> str:
    from rewards.services import do_run_simulation

    return do_run_simulation(simulation_id).status


# Training runs one task per GPU (or one CPU worker) on the `gpu` queue. Acknowledged after it
# ends: a worker that dies hands the task back and the run resumes from its last checkpoint.
@shared_task(bind=True, name="workers.train", acks_late=True, reject_on_worker_lost=True)
def train(self, run_id: int) -> str:
    try:
        return services.do_run_training(run_id, self.request.hostname or socket.gethostname())
    except services.RunBusy as busy:
        # another delivery trains it; come back when its lease would have gone stale
        raise self.retry(exc=busy, countdown=services.LEASE_STALE_S, max_retries=None) from busy


# Scoring a training step's programs measures them: it runs where timing jobs run.
@shared_task(bind=True, name="workers.score_rollouts", acks_late=True, reject_on_worker_lost=True)
def score_rollouts(self, job_id: int) -> str:
    return services.do_score_rollouts(job_id, self.request.hostname or socket.gethostname())


# An evaluation generates (queue `gpu`, where models run) or only scores uploaded programs
# (queue `timing`); evaluations.services.do_create_evaluation chooses. Acknowledged after it
# ends: a worker that dies hands it back, and it starts over.
@shared_task(bind=True, name="workers.evaluate", acks_late=True, reject_on_worker_lost=True)
def evaluate(self, evaluation_id: int) -> str:
    from evaluations.services import do_run_evaluation

    return do_run_evaluation(evaluation_id, self.request.hostname or socket.gethostname())


# Speedup-source judging (queue `judge`): the analyzer, and the LLM judge, which mostly waits
# on its endpoint.
@shared_task(name="workers.judge")
def judge(batch_id: int) -> str:
    from judges.services import do_run_batch

    return do_run_batch(batch_id)
