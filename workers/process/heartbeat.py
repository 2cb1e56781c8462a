"""Each Celery worker writes a heartbeat row every few seconds; /healthz reads them, and
each beat also sends again the jobs of workers that stopped beating (workers/process/rescue.py).

A database row works with every broker (the filesystem transport has no broadcast for
`celery inspect ping`), and it says which queues a worker consumes.
"""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready, worker_shutdown
from django.db import close_old_connections
from django.utils import timezone

from foundation.liveness import WorkerHeartbeat, worker_dead_after
from scoring import calibration

log = logging.getLogger(__name__)
HEARTBEAT_SECONDS = 5.0
"""Seconds between beats; at most a sixth of a dead worker's silence (jobs.worker_dead_after)."""
_stop = threading.Event()


def beat(hostname: str, queues: list[str], booted_at=None) -> None:
    defaults = {"queues": ",".join(queues), "last_seen": timezone.now()}
    if booted_at is not None:
        defaults["booted_at"] = booted_at
    WorkerHeartbeat.objects.update_or_create(hostname=hostname, defaults=defaults)


def _loop(hostname: str, queues: list[str], app) -> None:
    from workers.process import rescue

    booted_at = timezone.now()
    while not _stop.is_set():
        try:
            beat(hostname, queues, booted_at)
            rescue.sweep(app, hostname)
        except Exception:  # a database blip must not kill the worker; the next beat retries
            log.exception("heartbeat failed")
        finally:
            close_old_connections()
        _stop.wait(min(HEARTBEAT_SECONDS, worker_dead_after().total_seconds() / 6))


@worker_ready.connect
def start_heartbeat(sender=None, **kwargs) -> None:
    queues = sorted(q.name for q in sender.app.amqp.queues.consume_from.values())
    thread = threading.Thread(target=_loop, args=(sender.hostname, queues, sender.app), daemon=True)
    thread.start()

    calibration.start_calibrating(sender.hostname, queues)


@worker_shutdown.connect
def stop_heartbeat(**kwargs) -> None:
    _stop.set()
    calibration.stop_calibrating()
