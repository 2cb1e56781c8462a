"""Scoring's tables: scoring jobs (a trainer's groups of programs), their parts, and the timing
hosts' calibrations.

The tables keep the `workers` app label (workers_<model>) and their migrations stay in
workers/migrations: the models moved here from workers/models.py without a schema change.
workers/models.py imports them so that Django registers them with that app."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from foundation.jobs import Job


class ScoringJob(Job):
    """Rollouts sent to the timing workers, and what came back: a step of our own trainer
    (`training`, no `owner`), or a request of any trainer through POST /api/scoring/
    (`owner`; with a run and a step also `training`: the external run's samples and
    metrics are then written by the worker, scoring/services.py)."""

    training = models.ForeignKey(
        "workers.TrainingRun",
        on_delete=models.CASCADE,
        related_name="scoring",
        null=True,
        blank=True,
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="scoring_jobs",
        null=True,
        blank=True,
        help_text="Who sent it through the API; empty: our own trainer.",
    )
    step = models.PositiveIntegerField(null=True, blank=True)
    policy_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The policy version that generated the programs."
    )
    request = models.JSONField(help_text="{reward_config, groups: [{problem, programs}]}")
    result = models.JSONField(null=True, blank=True, help_text="[[Score as dict, ...], ...]")
    request_key = models.CharField(
        max_length=100,
        blank=True,
        default="",
        help_text="The client's key for the request: sent again, it answers this job.",
    )

    class Meta:
        app_label = "workers"
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "request_key"],
                condition=~models.Q(request_key=""),
                name="one_scoring_job_per_request_key",
            )
        ]


class ScoringGather(models.Model):
    """A group being gathered from samples sent one at a time (verl's reward loop, OpenRLHF's
    remote reward: scoring/services/gathering.py). Open until it holds `group_size` samples
    or `closes_at` passes; then one ScoringJob scores the whole group (`job`), or `error`
    says why none could be queued."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scoring_gathers"
    )
    key = models.CharField(
        max_length=64, help_text="sha256 of the client's group key, problem and reward config."
    )
    request = models.JSONField(help_text="{reward_config, problem, run, step}: the job's fields.")
    group_size = models.PositiveIntegerField(help_text="Samples that complete the group.")
    completions = models.JSONField(default=list, help_text="The samples, in arrival order.")
    opened_at = models.DateTimeField(default=timezone.now)
    closes_at = models.DateTimeField(help_text="The group is scored as it is at this time.")
    open = models.BooleanField(default=True)
    job = models.ForeignKey(
        "workers.ScoringJob", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    error = models.TextField(blank=True, default="")

    class Meta:
        app_label = "workers"
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "key"], condition=models.Q(open=True), name="one_open_gather"
            )
        ]


class ScoringPart(Job):
    """One group of a ScoringJob, scored by whichever timing worker claims it first: the
    job's groups are spread over the workers (scoring/coordinator.py). `result` is
    {"scores": [Score as dict, ...], "sandbox": counts}."""

    job = models.ForeignKey("workers.ScoringJob", on_delete=models.CASCADE, related_name="parts")
    index = models.PositiveIntegerField(help_text="The group's place in the request.")
    result = models.JSONField(null=True, blank=True)

    class Meta:
        app_label = "workers"
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="one_part_per_group")]
        ordering = ["job", "index"]


class HostCalibration(models.Model):
    """One calibration of a timing host (timing/calibration.py): its anchor costs,
    measured when the worker starts and every CODEOPT_ANCHOR_INTERVAL_S, and the factor that
    puts its measurements on the stored references' scale. The newest row per host counts."""

    hostname = models.CharField(max_length=255, db_index=True)
    measured_at = models.DateTimeField(default=timezone.now, db_index=True)
    anchor_costs = models.JSONField(default=dict, help_text="{anchor: CPU seconds}, lowest run")
    factor = models.FloatField(help_text="Geometric mean of host / baseline anchor cost.")
    spread = models.FloatField(help_text="Max / min of the per-anchor ratios (1.0: all agree).")
    baseline = models.CharField(
        max_length=200, blank=True, default="", help_text="Where the baseline anchors came from."
    )

    class Meta:
        app_label = "workers"
        ordering = ["-measured_at"]

    def __str__(self) -> str:
        return f"{self.hostname} x{self.factor:.3f} at {self.measured_at:%Y-%m-%d %H:%M:%S}"
