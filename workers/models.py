from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """Written by every Celery worker every few seconds; /healthz lists the recent ones."""

    hostname = models.CharField(max_length=255, unique=True)
    queues = models.CharField(max_length=500, blank=True, default="")
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return self.hostname
