"""Broadcasts to a run's live viewers, sent by runs/services.py after its transaction
commits (`notify_*`): the run page's new points, status and progress.

Each message is encoded once here and relayed as text to every viewer by `runs.consumers`.
With the in-process channel layer, which reaches this process only, the message is also
kept in the database for a minute (`LiveMessage`), where `runs.live` in each web process
reads it.
"""

from __future__ import annotations

from datetime import timedelta

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from runs import live
from runs.models import LiveMessage


def _group_send(run_id: int, payload: dict) -> None:
    """Encode once, relay to every viewer of the run (`runs.consumers`): through the channel
    layer, and, while that layer reaches this process only, through the database for the
    web processes (`runs.live`)."""
    layer = get_channel_layer()
    if layer is None:
        return
    text = orjson.dumps(payload).decode()
    if live.through_database(layer):
        _keep_for_other_processes(run_id, text)
    async_to_sync(layer.group_send)(live.run_group(run_id), {"type": "live.message", "text": text})


def _keep_for_other_processes(run_id: int, text: str) -> None:
    """Store a live message for the web processes' tails, and delete the expired ones (an
    index range; usually none): the table holds about a minute of messages."""
    now = timezone.now()
    with transaction.atomic():
        LiveMessage.objects.create(run_id=run_id, origin=live.origin(), text=text, created_at=now)
        LiveMessage.objects.filter(
            created_at__lt=now - timedelta(seconds=live.RETENTION_S)
        ).delete()


def notify_metrics(run_id: int, message: dict) -> None:
    _group_send(run_id, message)


def notify_run_status(run_id: int, status: str) -> None:
    _group_send(run_id, {"type": "status", "status": status})


def notify_run_progress(run_id: int, **fields) -> None:
    """A running job's progress on the run page: {"type": "progress", **fields} (a training
    run sends `step`, the optimizer steps done, and `stage`)."""
    _group_send(run_id, {"type": "progress", **fields})
