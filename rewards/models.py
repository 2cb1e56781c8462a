"""Stored reward configurations (referenced by training runs) and simulator jobs."""

from __future__ import annotations

from django.db import models

from foundation.jobs import Job
from rewards import engine


class RewardConfig(models.Model):
    """A named point of the reward design space: `fields` holds every field of
    rewards.engine.RewardConfig except the name, verbatim. Shared: every user sees and trains
    with every configuration (runs name them); only staff and the members of its team may
    change one, and a configuration without a team (the built-in set) only staff."""

    name = models.CharField(max_length=100, unique=True)
    team = models.ForeignKey(
        "runs.Team",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reward_configs",
        help_text="Who may change it (with staff); empty: staff only (the built-in set).",
    )
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

    def may_change(self, user) -> bool:
        """Staff, or a member of the configuration's team."""
        if user.is_staff:
            return True
        return self.team_id is not None and self.team.members.filter(pk=user.pk).exists()

    def engine_config(self) -> engine.RewardConfig:
        return engine.RewardConfig.from_dict({**self.fields, "name": self.name})


class Simulation(Job):
    """One run of the offline simulator: what was asked, on what, and what came out. The
    configurations are stored as simulated (a stored config may change later)."""

    started_by = models.CharField(max_length=150, blank=True, default="")
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
    problems_used = models.JSONField(
        default=list, blank=True, help_text="[[slug, references, tests, test kind], ...]"
    )
    skipped = models.JSONField(default=list, blank=True, help_text="[[slug, reason], ...]")
    results = models.JSONField(default=list, blank=True, help_text="ConfigResult.as_dict()")
    wall_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]


class RewardRanking(models.Model):
    """The reward design space ranked at one timing noise level
    (rewards.design_ranking.rank_designs): every configuration's score and components, the
    winner and the why text, as computed then (configurations may change later)."""

    created_at = models.DateTimeField(auto_now_add=True)
    started_by = models.CharField(max_length=150, blank=True, default="")
    noise_cv = models.FloatField(help_text="Timing noise (CV of CPU time) ranked at.")
    group_size = models.PositiveIntegerField(default=16)
    draws = models.PositiveIntegerField(default=1, help_text="Noise draws averaged.")
    seed = models.IntegerField(default=0)
    quick = models.BooleanField(default=False)
    mode = models.CharField(max_length=12, default="cpu")
    split = models.CharField(max_length=12, blank=True, default="")
    configs_from = models.CharField(
        max_length=12, default="stored", help_text="stored | built-in (none stored then)."
    )
    configs = models.JSONField(default=list, help_text="[engine config as dict, ...]")
    problem_slugs = models.JSONField(default=list, blank=True, help_text="Empty: every problem.")
    problems_used = models.JSONField(
        default=list, blank=True, help_text="[[slug, references, tests, test kind], ...]"
    )
    skipped = models.JSONField(default=list, blank=True, help_text="[[slug, reason], ...]")
    scores = models.JSONField(default=list, help_text="DesignScore dicts, best first.")
    winner = models.CharField(max_length=100, blank=True, default="")
    winner_family = models.CharField(max_length=40, blank=True, default="")
    why = models.TextField(blank=True, default="")
    criterion = models.TextField(blank=True, default="")
    wall_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    @property
    def noise_cv_text(self) -> str:
        """The noise level as the why text writes it: three significant figures."""
        return f"{self.noise_cv:.3g}"
