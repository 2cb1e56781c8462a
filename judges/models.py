"""Speedup-source judging (PAPER.md section 6): batches of (baseline, optimized) program
pairs, and each judge's verdict on each pair (the analyzer, the LLM, or a person)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from foundation.jobs import Job
from judges.categories import VERDICTS

CATEGORY_CHOICES = [(c, c) for c in VERDICTS]


class JudgeBatch(Job):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="judge_batches"
    )
    team = models.ForeignKey("runs.Team", on_delete=models.CASCADE, related_name="judge_batches")
    name = models.CharField(max_length=200)
    evaluation = models.ForeignKey(
        "evaluations.Evaluation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="judge_batches",
        help_text="The optimized programs' evaluation.",
    )
    baseline_evaluation = models.ForeignKey(
        "evaluations.Evaluation",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="The starting model's evaluation; empty: the median human reference.",
    )
    pairs_file = models.CharField(max_length=300, blank=True, default="")
    judges = models.JSONField(default=list, help_text='["analyzer"], ["llm"] or both.')
    llm_model = models.CharField(max_length=200, blank=True, default="")
    tie_band = models.FloatField(default=0.05)
    measure = models.BooleanField(
        default=True,
        help_text="Measure each pair's evidence on its problem's generator before judging.",
    )
    input_errors = models.JSONField(default=list)

    class Meta:
        ordering = ["-created_at", "-pk"]


class JudgePair(models.Model):
    class Kind(models.TextChoices):
        FASTER = "faster", "faster: judged"
        NOISE = "within_noise", "within measurement noise: not judged"
        SLOWER = "slower", "slower: not judged"
        UNMEASURED = "unmeasured", "no runtimes given: judged"

    batch = models.ForeignKey(JudgeBatch, on_delete=models.CASCADE, related_name="pairs")
    problem_slug = models.CharField(max_length=200)
    statement = models.TextField(blank=True, default="")
    baseline = models.TextField()
    optimized = models.TextField()
    baseline_label = models.CharField(max_length=300, blank=True, default="")
    optimized_label = models.CharField(max_length=300, blank=True, default="")
    baseline_s = models.FloatField(null=True, blank=True)
    optimized_s = models.FloatField(null=True, blank=True)
    baseline_exponent = models.FloatField(null=True, blank=True)
    optimized_exponent = models.FloatField(null=True, blank=True)
    true_category = models.CharField(
        max_length=30,
        blank=True,
        default="",
        help_text="The ground truth, when the pairs file has one (its `category`).",
    )
    kind = models.CharField(max_length=14, choices=Kind.choices)
    evidence = models.JSONField(
        null=True,
        blank=True,
        help_text="What was measured of both programs (judges/evidence.py, Evidence.as_dict); "
        "empty: not measured (no problem with a generator), see evidence_note.",
    )
    evidence_note = models.CharField(max_length=300, blank=True, default="")
    evidence_key = models.CharField(max_length=64, blank=True, default="", db_index=True)

    class Meta:
        ordering = ["problem_slug", "pk"]

    @property
    def speedup(self) -> float | None:
        if self.baseline_s and self.optimized_s:
            return self.baseline_s / self.optimized_s
        return None


class Judgment(models.Model):
    class Judge(models.TextChoices):
        ANALYZER = "analyzer"
        LLM = "llm"
        HUMAN = "human"

    pair = models.ForeignKey(JudgePair, on_delete=models.CASCADE, related_name="judgments")
    judge = models.CharField(max_length=10, choices=Judge.choices)
    category = models.CharField(max_length=20, choices=CATEGORY_CHOICES, blank=True, default="")
    secondary = models.CharField(max_length=20, blank=True, default="")
    rationale = models.TextField(blank=True, default="")
    confidence = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, default="", help_text="Judge error: no category.")
    raw = models.TextField(
        blank=True, default="", help_text="An LLM's replies when none was valid (kept as said)."
    )
    model = models.CharField(max_length=200, blank=True, default="")
    content_key = models.CharField(max_length=64, blank=True, default="", db_index=True)
    cached = models.BooleanField(default=False)
    latency_s = models.FloatField(null=True, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost = models.FloatField(default=0.0)
    by = models.CharField(max_length=150, blank=True, default="", help_text="Human labels.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["pair", "judge"], name="one_verdict_per_judge")
        ]
