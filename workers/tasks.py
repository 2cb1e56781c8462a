"""Celery tasks: take ids, load, call one service, store."""

from __future__ import annotations

from celery import shared_task

from workers import (
    heartbeat,  # noqa: F401  (connects the worker signals)
    services,
)


@shared_task(name="workers.replay_synthetic_run")
def replay_synthetic_run(run_id: int, api_url: str, total_steps: int = 600, interval: float = 0.5):
    return services.do_replay_synthetic_run(run_id, api_url, total_steps, interval)


@shared_task(name="workers.ping")
def ping() -> str:
    return "pong"
