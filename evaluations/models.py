"""Evaluations (PAPER.md section 5): what was evaluated, on which problems, its samples as
scored, and the figures (evaluations.metrics) once done."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from foundation.jobs import Job


class Evaluation(Job):
    class Source(models.TextChoices):
        RUN = "run", "a run's checkpoint"
        MODEL = "model", "a base model"
        COMPLETIONS = "completions", "uploaded completions"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="evaluations"
    )
    team = models.ForeignKey("runs.Team", on_delete=models.CASCADE, related_name="evaluations")
    name = models.CharField(max_length=200)
    source = models.CharField(max_length=12, choices=Source.choices)
    run = models.ForeignKey(
        "runs.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="evaluations"
    )
    step = models.PositiveIntegerField(
        null=True, blank=True, help_text="The checkpoint's step (policy version) evaluated."
    )
    model = models.CharField(max_length=500, blank=True, default="", help_text="tiny or a path.")
    completions_file = models.CharField(max_length=300, blank=True, default="")
    split = models.CharField(max_length=10, default="test")
    problem_slugs = models.JSONField(default=list, help_text="The problems evaluated.")
    n = models.PositiveSmallIntegerField(default=20, help_text="Samples per problem.")
    temperature = models.FloatField(default=1.0)
    seed = models.IntegerField(default=0)
    max_new_tokens = models.PositiveIntegerField(default=256)
    taus = models.JSONField(default=list)
    complexity = models.BooleanField(default=True, help_text="Measure scaling exponents.")
    input_errors = models.JSONField(
        default=list, help_text="Upload lines left out: [{line, error}]."
    )
    results = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"evaluation {self.pk} ({self.name})"

    @property
    def queue(self) -> str:
        """Its Celery queue: `timing` when it only scores uploaded programs (where programs
        are timed), `eval` when it generates: a lane of its own beside `gpu`, so that an
        evaluation of a checkpoint never waits behind whole training runs."""
        return "timing" if self.source == self.Source.COMPLETIONS else "eval"


class EvaluationSample(models.Model):
    """One program of an evaluation: generated or uploaded, then scored (verdict set)."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="samples")
    problem = models.ForeignKey(
        "problems.Problem", on_delete=models.CASCADE, related_name="evaluation_samples"
    )
    index = models.PositiveIntegerField()
    completion = models.TextField(blank=True, default="")
    program = models.TextField(blank=True, default="", help_text="Empty: none (FORMAT).")
    verdict = models.CharField(
        max_length=20, blank=True, default="", help_text="Empty: not scored yet."
    )
    correct = models.BooleanField(default=False)
    speed_percentile = models.FloatField(null=True, blank=True)
    cost_s = models.FloatField(
        null=True, blank=True, help_text="CPU s over the optimization tests; inf: timed out."
    )

    class Meta:
        ordering = ["problem_id", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "problem", "index"], name="evaluation_sample_index"
            )
        ]
