"""Runs and per-step metric points (teams: foundation/tenancy.py).

Metric storage is split in two tables so that a key string is stored once per run, not once
per point: `MetricSeries` (one row per run and key, with running summaries) and `MetricPoint`
(one row per series and step). The composite primary key (series, step) is the index that
serves "the series of key K of run R ordered by step", and the conflict target that makes a
re-sent batch overwrite instead of duplicate.

NaN is stored as SQL NULL (SQLite cannot hold a NaN; JSON has no NaN either and
JavaScript's JSON.stringify writes null for it). Infinities are stored as floats.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from foundation.tenancy import Team  # noqa: F401  (runs.Team: the migrations' name for it)


class RunStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    STOPPED = "stopped"


class Run(models.Model):
    name = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    config = models.TextField(
        blank=True, default="", help_text="The run's configuration, stored verbatim as sent."
    )
    model_name = models.CharField(max_length=200, blank=True, default="")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="runs"
    )
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="runs")
    tags = models.JSONField(default=list, blank=True)
    reward_config = models.ForeignKey(
        "rewards.RewardConfig",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="runs",
        help_text="The reward the run trains with (a referenced config cannot change).",
    )
    notes = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_step = models.BigIntegerField(null=True, blank=True)
    last_metric_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["team", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.name} (#{self.pk})"


class MetricSeries(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="series")
    key = models.CharField(max_length=200)
    count = models.BigIntegerField(default=0, help_text="Number of distinct steps stored.")
    first_step = models.BigIntegerField(null=True)
    last_step = models.BigIntegerField(null=True)
    last_value = models.FloatField(null=True, help_text="Value at last_step; NULL means NaN.")
    nan_count = models.BigIntegerField(
        default=0, help_text="Points ever received as NaN (an upper bound after overwrites)."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="series_run_key")]
        ordering = ["key"]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.key}"


class MetricPoint(models.Model):
    pk = models.CompositePrimaryKey("series", "step")
    # No database-level foreign key: its per-row trigger doubled PostgreSQL's work per
    # ingested point (docs/benchmarks.md). Points are only written by `runs.services`, inside
    # the transaction that creates their series, and Django cascades the deletes.
    series = models.ForeignKey(MetricSeries, on_delete=models.CASCADE, db_constraint=False)
    step = models.BigIntegerField()
    value = models.FloatField(null=True, help_text="NULL means NaN.")
    recorded_at = models.DateTimeField()


class MetricRollup(models.Model):
    """The extreme points of one aligned bucket of a series at one width (`runs.rollups`).

    Derived from MetricPoint by `runs.metric_store` on every ingest; rebuilt from the points
    by `python manage.py rebuild_rollups`. A NULL step means the bucket has no such point.
    """

    pk = models.CompositePrimaryKey("series", "level", "bucket")
    series = models.ForeignKey(MetricSeries, on_delete=models.CASCADE, db_constraint=False)
    level = models.SmallIntegerField(help_text="Index into runs.rollups.ROLLUP_WIDTHS.")
    bucket = models.BigIntegerField(help_text="Steps [bucket*width, (bucket+1)*width).")
    min_step = models.BigIntegerField(null=True)
    min_value = models.FloatField(null=True)
    min_time = models.FloatField(null=True, help_text="Epoch seconds.")
    max_step = models.BigIntegerField(null=True)
    max_value = models.FloatField(null=True)
    max_time = models.FloatField(null=True)
    nan_step = models.BigIntegerField(null=True)
    nan_time = models.FloatField(null=True)


class LiveMessage(models.Model):
    """A live message (`runs.services.notify_*`) kept briefly for the other processes.

    Written only while the channel layer is in-process (no REDIS_URL): a Celery worker's or
    a script's group_send cannot reach the web process then, so each web process tails this
    table for the runs its viewers watch (`runs.live`). `origin` names the writing process,
    which relays its own messages itself; rows older than `runs.live.RETENTION_S` are deleted
    by the writers.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    origin = models.CharField(max_length=64)
    text = models.TextField(help_text="The message as the viewers receive it (JSON).")
    created_at = models.DateTimeField(db_index=True)
