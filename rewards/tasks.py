"""Celery tasks of rewards: take ids, call one service. Each is named after its app; its
former name ("workers.<task>") stays registered as an alias for one release."""

from __future__ import annotations

from foundation.sending import job_task, worker_name
from rewards.services import do_run_simulation


# The simulator is numpy on stored runtimes: no measurement, so the default queue.
@job_task(
    "rewards.run_simulation",
    job_model="rewards.Simulation",
    aliases=("workers.run_reward_simulation",),
)
def run_reward_simulation(self, simulation_id: int) -> str:
    return do_run_simulation(simulation_id, worker=worker_name(self)).status
