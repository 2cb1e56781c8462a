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
    error = models.TextField(blank=True, default="")
    # The lease: the task delivery training the run now, and its last sign of life. A second
    # delivery waits while the heartbeat is fresh (services.claim_training).
    lease = models.CharField(max_length=100, blank=True, default="")
    heartbeat_at = models.DateTimeField(null=True, blank=True)


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


class ScoringJob(models.Model):
    """One step's rollouts sent by a trainer to the timing workers, and what came back."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    training = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="scoring")
    step = models.PositiveIntegerField()
    request = models.JSONField(help_text="{reward_config, groups: [{problem, programs}]}")
    result = models.JSONField(null=True, blank=True, help_text="[[Score as dict, ...], ...]")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    worker = models.CharField(max_length=255, blank=True, default="")
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
