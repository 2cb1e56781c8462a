"""The problem set: problems, their tests, input generators and reference solutions.

Test data is stored gzip-compressed (competitive-programming inputs compress 3-10x); a test
made by a generator also records the generator, seed and size that regenerate it.
"""

from __future__ import annotations

import gzip

from django.db import models


class Split(models.TextChoices):
    TRAIN = "train"
    TEST = "test"
    UNASSIGNED = "unassigned"


class Problem(models.Model):
    slug = models.SlugField(max_length=120, unique=True)
    title = models.CharField(max_length=200)
    statement = models.TextField(blank=True, default="", help_text="Markdown.")
    time_limit_s = models.FloatField(default=2.0)
    memory_limit_mb = models.PositiveIntegerField(default=512)
    source = models.CharField(max_length=200, blank=True, default="")
    license = models.CharField(max_length=200, blank=True, default="")
    tags = models.JSONField(default=list, blank=True)
    split = models.CharField(max_length=12, choices=Split.choices, default=Split.UNASSIGNED)
    checker = models.JSONField(
        default=dict,
        blank=True,
        help_text="Default-validator settings (workers.execution.checker).",
    )
    validator_source = models.TextField(
        blank=True, default="", help_text="A custom C++ output validator, when the problem has one."
    )
    validator_flags = models.CharField(max_length=200, blank=True, default="")
    origin = models.CharField(max_length=500, blank=True, default="", help_text="Imported from.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class InputGenerator(models.Model):
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="generators")
    name = models.CharField(max_length=100)
    code = models.TextField(help_text="Python 3: `python3 gen.py SEED SIZE` prints one input.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["problem", "name"], name="generator_name")]


class TestKind(models.TextChoices):
    SAMPLE = "sample"
    CORRECTNESS = "correctness"
    OPTIMIZATION = "optimization"


class ProblemTest(models.Model):
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="tests")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=TestKind.choices)
    input_gz = models.BinaryField()
    answer_gz = models.BinaryField()
    input_bytes = models.PositiveBigIntegerField(help_text="Uncompressed size.")
    generator = models.ForeignKey(
        InputGenerator, null=True, blank=True, on_delete=models.SET_NULL, related_name="tests"
    )
    seed = models.BigIntegerField(null=True, blank=True)
    size = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["problem", "kind", "name"]
        constraints = [models.UniqueConstraint(fields=["problem", "name"], name="test_name")]

    @property
    def input_text(self) -> str:
        return gzip.decompress(bytes(self.input_gz)).decode()

    @property
    def answer_text(self) -> str:
        return gzip.decompress(bytes(self.answer_gz)).decode()


class Verdict(models.TextChoices):
    ACCEPTED = "accepted"
    TOO_SLOW = "too_slow"
    WRONG = "wrong"


class ReferenceSolution(models.Model):
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="solutions")
    name = models.CharField(max_length=200)
    language = models.CharField(max_length=10)
    code = models.TextField()
    author_label = models.CharField(max_length=100, blank=True, default="")
    verdict_label = models.CharField(max_length=10, choices=Verdict.choices)

    class Meta:
        ordering = ["problem", "name"]
        constraints = [models.UniqueConstraint(fields=["problem", "name"], name="solution_name")]
