from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class WorkerHeartbeat(models.Model):
    """Written by every Celery worker every few seconds; /healthz lists the recent ones."""

    hostname = models.CharField(max_length=255, unique=True)
    queues = models.CharField(max_length=500, blank=True, default="")
    last_seen = models.DateTimeField()

    def __str__(self) -> str:
        return self.hostname


class TimingJob(models.Model):
    """One measurement job on the `timing` queue: a program measured on a problem package
    beside its references (`measure`), or re-measured in several modes to see how much its
    speed percentile moves (`jitter`). Results are written once, when the job ends."""

    class Kind(models.TextChoices):
        MEASURE = "measure"
        JITTER = "jitter"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="timing_jobs"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.MEASURE)
    package_dir = models.CharField(max_length=500, help_text="A problem package on the workers.")
    source = models.TextField()
    language = models.CharField(max_length=10)
    modes = models.CharField(max_length=40, default="cpu", help_text="Comma-separated.")
    repeats = models.PositiveSmallIntegerField(default=5)
    remeasure = models.PositiveSmallIntegerField(default=5, help_text="Jitter jobs only.")
    reference_folders = models.CharField(max_length=200, default="accepted")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    worker = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-created_at"]

    @property
    def queue_wait_s(self) -> float | None:
        if self.started_at is None:
            return None
        return (self.started_at - self.created_at).total_seconds()

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()
