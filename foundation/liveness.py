"""Which workers are alive: every Celery worker writes its heartbeat row every few seconds
(workers/process/heartbeat.py); a worker silent for worker_dead_after(), or one that
restarted since a job started, no longer runs that job (its job is sent again by a live
worker's sweep, workers/process/rescue.py).

The table keeps the `workers` app label (workers_workerheartbeat, migrations in
workers/migrations): the model moved here without a schema change."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


class WorkerHeartbeat(models.Model):
    """Written by every Celery worker every few seconds; /healthz lists the recent ones."""

    hostname = models.CharField(max_length=255, unique=True)
    queues = models.CharField(max_length=500, blank=True, default="")
    last_seen = models.DateTimeField()
    # when this worker started: a job it claimed before then died with its earlier self
    booted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "workers"

    def __str__(self) -> str:
        return self.hostname


def worker_dead_after() -> timedelta:
    """A worker whose heartbeat (workers/process/heartbeat.py, at most every 5 s) is this old
    is gone: its running jobs are sent again (workers/process/rescue.py). 30 s unless
    CODEOPT_WORKER_DEAD_AFTER_S says otherwise (the same on every host)."""
    return timedelta(seconds=settings.CODEOPT_WORKER_DEAD_AFTER_S)


def worker_alive(hostname: str, since, now=None) -> bool:
    """`hostname` beat within worker_dead_after() and has not restarted since `since` (a
    restarted worker beats again under its old name, but what ran in it died)."""
    heartbeats = WorkerHeartbeat.objects
    now = now or timezone.now()
    beat = heartbeats.filter(hostname=hostname).first()
    if beat is None or beat.last_seen < now - worker_dead_after():
        return False
    return beat.booted_at is None or since is None or beat.booted_at <= since


def heartbeats() -> dict[str, tuple]:
    """{worker: (last seen, booted at)} of every worker that ever beat."""
    rows = WorkerHeartbeat.objects
    return {
        row.hostname: (row.last_seen, row.booted_at)
        for row in rows.only("hostname", "last_seen", "booted_at")
    }


def gone_why(worker: str, started_at, beats: dict[str, tuple], now) -> str:
    """Why the worker that started a job at `started_at` no longer runs it; "" if it may, or
    if `worker` never beat: no Celery worker (a command running a job in the foreground,
    `manage.py evaluate` as "cli"), not one to judge by heartbeats."""
    if worker not in beats:
        return ""
    last_seen, booted_at = beats[worker]
    if last_seen < now - worker_dead_after():
        return f"worker {worker} stopped beating {(now - last_seen).total_seconds():.0f} s ago"
    if booted_at is not None and started_at is not None and booted_at > started_at:
        return f"worker {worker} restarted after the job started"
    return ""
