"""Training's tables: a run's training side and its rollout samples.

The tables keep the `workers` app label (workers_<model>) and their migrations stay in
workers/migrations: the models moved here from workers/models.py without a schema change.
workers/models.py imports them so that Django registers them with that app."""

from __future__ import annotations

import json

from django.db import models
from django.utils import timezone

from foundation.progress import progress_text


class TrainingRun(models.Model):
    """The training side of a Run: its config as started, checkpoints and stop request. The
    Run row holds the status, the metrics and the reward configuration."""

    run = models.OneToOneField("runs.Run", on_delete=models.CASCADE, related_name="training")
    config = models.JSONField(help_text="training.config.TrainConfig, as started.")
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

    def left(self, running: bool) -> tuple[float | None, bool]:
        """(seconds until the run ends, whether that is a lower bound), for what waits behind
        it on its queue: the stage's estimate plus the stages after it. The training stage
        lasts its time budget (`max_minutes`: it stops there) or to its estimated end; the
        warm start and the stages before it are not known ahead (a lower bound). None: not
        known at all."""
        minutes = self.config.get("max_minutes")
        budget = 60.0 * minutes if minutes else None
        if not running:
            return (budget, True) if budget else (None, False)
        stage_left = self.remaining_s
        if self.stage.startswith("training"):
            return (stage_left if stage_left is not None else budget), False
        if budget is None:
            return stage_left, True
        before_training = not self.stage.startswith("warm start")
        return (stage_left or 0.0) + budget, before_training or stage_left is None

    @property
    def external(self) -> bool:
        """Trained elsewhere (TRL, verl, OpenRLHF): made on its first scored step, with no
        checkpoints, no task and no stage of ours (scoring.services.external_training)."""
        return bool(self.config.get("external"))

    @property
    def steps_done(self) -> int:
        """Optimizer steps done, the one figure every page shows: ours count them (the
        checkpoint's name; our trainer logs each step's metrics at it), a run trained
        elsewhere reports them as its metrics' last step (TRL's global_step)."""
        if self.external:
            return self.run.last_step or 0
        return self.version

    @property
    def steps_total(self) -> int | None:
        """The step cap: ours from the config; a run trained elsewhere's from its run's
        config `max_steps`, when its trainer sent one (None: not known here)."""
        if self.external:
            try:
                config = json.loads(self.run.config or "{}")
            except ValueError:  # a config stored verbatim need not be JSON
                return None
            total = config.get("max_steps") if isinstance(config, dict) else None
            return total if isinstance(total, int) and not isinstance(total, bool) else None
        return self.config.get("steps")

    @property
    def stage_text(self) -> str:
        """The Training page's stage cell: running (or trained elsewhere), the stage with its
        count and estimate; otherwise the stage it ended in (or queued at)."""
        if self.run.status == "running" or self.external:
            return self.progress_text
        return self.stage

    @property
    def progress_text(self) -> str:
        """The stage, its count and estimate: "warm start 120/300, about 2 min left"; for a
        run trained elsewhere, the steps its trainer reported."""
        if self.external:
            total = self.steps_total
            of = f" of {total}" if total else ""
            return f"step {self.steps_done}{of}, reported by its trainer"
        return progress_text(self.stage, self.progress_done, self.progress_total, self.remaining_s)

    class Meta:
        app_label = "workers"


class RolloutSample(models.Model):
    """One scored rollout: the program, its reward and how it was judged."""

    training = models.ForeignKey(
        "workers.TrainingRun", on_delete=models.CASCADE, related_name="samples"
    )
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
        app_label = "workers"
        ordering = ["step", "group", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["training", "step", "group", "index"], name="rollout_position"
            )
        ]
        indexes = [models.Index(fields=["training", "problem", "step"])]
