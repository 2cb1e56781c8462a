"""Each Celery worker writes a heartbeat row every few seconds; /healthz reads them.

A database row works with every broker (the filesystem transport has no broadcast for
`celery inspect ping`), and it says which queues a worker consumes.
"""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready, worker_shutdown
from django.db import close_old_connections
from django.utils import timezone

log = logging.getLogger(__name__)
HEARTBEAT_SECONDS = 5.0
_stop = threading.Event()


def beat(hostname: str, queues: list[str]) -> None:
    from workers.models import WorkerHeartbeat

    WorkerHeartbeat.objects.update_or_create(
        hostname=hostname, defaults={"queues": ",".join(queues), "last_seen": timezone.now()}
    )


def _loop(hostname: str, queues: list[str]) -> None:
    while not _stop.is_set():
        try:
            beat(hostname, queues)
        except Exception:  # a database blip must not kill the worker; the next beat retries
            log.exception("heartbeat failed")
        finally:
            close_old_connections()
        _stop.wait(HEARTBEAT_SECONDS)


@worker_ready.connect
def start_heartbeat(sender=None, **kwargs) -> None:
    queues = sorted(q.name for q in sender.app.amqp.queues.consume_from.values())
    thread = threading.Thread(target=_loop, args=(sender.hostname, queues), daemon=True)
    thread.start()


@worker_shutdown.connect
def stop_heartbeat(**kwargs) -> None:
    _stop.set()
