"""Celery tasks of the worker processes themselves: the demo's synthetic run, a liveness ping.
The domains' tasks are in their own apps' tasks.py (training, timing, scoring, ...)."""

from __future__ import annotations

from celery import shared_task

from workers import demo
from workers.process import heartbeat, pinning  # noqa: F401  (signal handlers)


@shared_task(name="workers.replay_synthetic_run")
def replay_synthetic_run(run_id: int, api_url: str, total_steps: int = 600, interval: float = 0.5):
    return demo.do_replay_synthetic_run(run_id, api_url, total_steps, interval)


@shared_task(name="workers.ping")
def ping() -> str:
    return "pong"
