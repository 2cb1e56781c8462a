"""Stored reward configurations (referenced by training runs) and simulator jobs."""

from __future__ import annotations

from django.db import models

from rewards import engine


class RewardConfig(models.Model):
    """A named point of the reward design space: `fields` holds every field of
    rewards.engine.RewardConfig except the name, verbatim."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True, default="")
    fields = models.JSONField(default=dict, help_text="rewards.engine.RewardConfig fields.")
    recommended = models.BooleanField(default=False, help_text="Recommended for training.")
    recommended_by = models.CharField(max_length=150, blank=True, default="")
    recommended_at = models.DateTimeField(null=True, blank=True)
    created_by = models.CharField(max_length=150, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-recommended", "name"]

    def __str__(self) -> str:
        return self.name

    def engine_config(self) -> engine.RewardConfig:
        return engine.RewardConfig.from_dict({**self.fields, "name": self.name})


class SimulationStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Simulation(models.Model):
    """One run of the offline simulator: what was asked, on what, and what came out. The
    configurations are stored as simulated (a stored config may change later)."""

    created_at = models.DateTimeField(auto_now_add=True)
    started_by = models.CharField(max_length=150, blank=True, default="")
    status = models.CharField(
        max_length=10, choices=SimulationStatus.choices, default=SimulationStatus.QUEUED
    )
    configs = models.JSONField(default=list, help_text="[engine config as dict, ...]")
    noise_cvs = models.JSONField(default=list)
    group_size = models.PositiveIntegerField(default=16)
    problem_slugs = models.JSONField(default=list, blank=True, help_text="Empty: every problem.")
    split = models.CharField(
        max_length=12, blank=True, default="", help_text="train | test; empty: any split."
    )
    mode = models.CharField(max_length=12, default="cpu")
    rank_against = models.CharField(
        max_length=12, default="references", help_text="own_outputs: the negative control."
    )
    seed = models.IntegerField(default=0)
    progress = models.FloatField(default=0.0)
    stage = models.CharField(max_length=200, blank=True, default="")
    problems_used = models.JSONField(
        default=list, blank=True, help_text="[[slug, references, tests, test kind], ...]"
    )
    skipped = models.JSONField(default=list, blank=True, help_text="[[slug, reason], ...]")
    results = models.JSONField(default=list, blank=True, help_text="ConfigResult.as_dict()")
    wall_seconds = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
