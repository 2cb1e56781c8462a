from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

from codeopt_site.jobs import Job, progress_text


class WorkerHeartbeat(models.Model):
    """Written by every Celery worker every few seconds; /healthz lists the recent ones."""

    hostname = models.CharField(max_length=255, unique=True)
    queues = models.CharField(max_length=500, blank=True, default="")
    last_seen = models.DateTimeField()
    # when this worker started: a job it claimed before then died with its earlier self
    booted_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.hostname


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
        ordering = ["-created_at"]


class TrainingRun(models.Model):
    """The training side of a Run: its config as started, checkpoints and stop request. The
    Run row holds the status, the metrics and the reward configuration."""

    run = models.OneToOneField("runs.Run", on_delete=models.CASCADE, related_name="training")
    config = models.JSONField(help_text="workers.training.config.TrainConfig, as started.")
    checkpoint_dir = models.CharField(max_length=500)
    version = models.PositiveIntegerField(default=0, help_text="Optimizer steps completed.")
    stop_requested = models.BooleanField(default=False)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Deliveries of the task.")
    worker = models.CharField(max_length=255, blank=True, default="")
    stage = models.CharField(max_length=200, blank=True, default="")
    # The stage's progress (problems loaded, warm-start steps, optimizer steps) and when the
    # stage should end at its rate so far: the run page shows them while it waits.
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0, help_text="0: nothing counted.")
    stage_ends_at = models.DateTimeField(
        null=True, blank=True, help_text="Estimated end of the stage, at its rate so far."
    )
    progress_share = models.FloatField(
        null=True,
        blank=True,
        help_text="Share of the stage done, 0 to 1: its count's, or where a time budget ends "
        "the stage before its count, its time's (the page's bar). None: nothing counted.",
    )
    error = models.TextField(blank=True, default="")
    # The lease: the task delivery training the run now, and its last sign of life. A second
    # delivery waits while the heartbeat is fresh (services.claim_training).
    lease = models.CharField(max_length=100, blank=True, default="")
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    @property
    def remaining_s(self) -> float | None:
        """Seconds to the stage's estimated end (0 once it is past); None without one."""
        if self.stage_ends_at is None:
            return None
        return max(0.0, (self.stage_ends_at - timezone.now()).total_seconds())

    @property
    def progress_text(self) -> str:
        """The stage, its count and estimate: "warm start 120/300, about 2 min left"."""
        return progress_text(self.stage, self.progress_done, self.progress_total, self.remaining_s)


class RolloutSample(models.Model):
    """One scored rollout: the program, its reward and how it was judged."""

    training = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="samples")
    step = models.PositiveIntegerField()
    problem = models.ForeignKey(
        "problems.Problem", on_delete=models.CASCADE, related_name="rollouts"
    )
    group = models.PositiveSmallIntegerField()
    index = models.PositiveSmallIntegerField()
    completion = models.TextField(help_text="The completion as generated.")
    program = models.TextField(blank=True, default="", help_text="Empty: no program (FORMAT).")
    reward = models.FloatField()
    verdict = models.CharField(max_length=20)
    correct = models.BooleanField()
    speed_percentile = models.FloatField(null=True, blank=True)
    policy_version = models.PositiveIntegerField()
    tokens = models.PositiveIntegerField()
    truncated = models.BooleanField()

    class Meta:
        ordering = ["step", "group", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["training", "step", "group", "index"], name="rollout_position"
            )
        ]
        indexes = [models.Index(fields=["training", "problem", "step"])]


class ScoringJob(Job):
    """Rollouts sent to the timing workers, and what came back: a step of our own trainer
    (`training`, no `owner`), or a request of any trainer through POST /api/scoring/
    (`owner`; with a run and a step also `training`: the external run's samples and
    metrics are then written by the worker, workers/scoring/services.py)."""

    training = models.ForeignKey(
        TrainingRun, on_delete=models.CASCADE, related_name="scoring", null=True, blank=True
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
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "request_key"],
                condition=~models.Q(request_key=""),
                name="one_scoring_job_per_request_key",
            )
        ]


class ScoringPart(Job):
    """One group of a ScoringJob, scored by whichever timing worker claims it first: the
    job's groups are spread over the workers (workers/training/remote.py). `result` is
    {"scores": [Score as dict, ...], "sandbox": counts}."""

    job = models.ForeignKey(ScoringJob, on_delete=models.CASCADE, related_name="parts")
    index = models.PositiveIntegerField(help_text="The group's place in the request.")
    result = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="one_part_per_group")
        ]
        ordering = ["job", "index"]


class HostCalibration(models.Model):
    """One calibration of a timing host (workers/timing/calibration.py): its anchor costs,
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
        ordering = ["-measured_at"]

    def __str__(self) -> str:
        return f"{self.hostname} x{self.factor:.3f} at {self.measured_at:%Y-%m-%d %H:%M:%S}"


class ModeNoiseCheck(models.Model):
    """One run of the timing-noise-by-mode diagnostic (workers/timing/mode_noise.py): rank
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
        ordering = ["-measured_at", "-pk"]

    def __str__(self) -> str:
        return f"noise by mode on {self.hostname} at {self.measured_at:%Y-%m-%d %H:%M:%S}"
