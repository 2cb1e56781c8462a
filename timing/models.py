"""Timing's tables: measurement jobs and timing-noise checks.

The tables keep the `workers` app label (workers_<model>) and their migrations stay in
workers/migrations: the models moved here from workers/models.py without a schema change.
workers/models.py imports them so that Django registers them with that app."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from foundation.jobs import Job


class TimingJob(Job):
    """One measurement job on the `timing` queue: a program measured on a problem package
    beside its references (`measure`), or re-measured in several modes to see how much its
    speed percentile moves (`jitter`), or a built problem's correct Python programs scored
    again and again as training scores a group (`rank_check`: the rank jitter of the
    product's own ranking). Results are written once, when the job ends."""

    class Kind(models.TextChoices):
        MEASURE = "measure"
        JITTER = "jitter"
        RANK_CHECK = "rank_check"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="timing_jobs"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.MEASURE)
    package_dir = models.CharField(max_length=500, help_text="A problem package on the workers.")
    problem = models.CharField(
        max_length=120,
        blank=True,
        default="",
        help_text="Rank checks: the built problem whose own correct programs are re-scored.",
    )
    reward_config = models.CharField(
        max_length=100, blank=True, default="", help_text="Rank checks: the ranking settings."
    )
    source = models.TextField()
    language = models.CharField(max_length=10)
    modes = models.CharField(max_length=40, default="cpu", help_text="Comma-separated.")
    repeats = models.PositiveSmallIntegerField(default=5)
    remeasure = models.PositiveSmallIntegerField(default=5, help_text="Jitter jobs only.")
    reference_folders = models.CharField(max_length=200, default="accepted")
    attempts = models.PositiveSmallIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)

    class Meta:
        app_label = "workers"
        ordering = ["-created_at"]


class ModeNoiseCheck(models.Model):
    """One run of the timing-noise-by-mode diagnostic (timing/mode_noise.py): rank
    jitter of built problems' references per timing mode, idle and loaded, as the Timing
    page charts it beside the paper's figures. Written once, when the run ends."""

    measured_at = models.DateTimeField(default=timezone.now, db_index=True)
    hostname = models.CharField(max_length=255, help_text="Where it was measured.")
    quick = models.BooleanField(default=False, help_text="The quick variant (fewer scorings).")
    seconds = models.FloatField(help_text="Wall time the whole diagnostic took.")
    result = models.JSONField(
        help_text="ModeNoise.as_dict(): results[mode][condition] = {p50, p95, max, ...}."
    )

    class Meta:
        app_label = "workers"
        ordering = ["-measured_at", "-pk"]

    def __str__(self) -> str:
        return f"noise by mode on {self.hostname} at {self.measured_at:%Y-%m-%d %H:%M:%S}"
