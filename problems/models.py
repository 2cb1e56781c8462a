"""The problem set: problems, their tests, input generators and reference solutions.

Test data is stored gzip-compressed (competitive-programming inputs compress 3-10x); a test
made by a generator also records the generator, seed and size that regenerate it.
"""

from __future__ import annotations

import gzip

from django.db import models

from foundation.jobs import Job


class Split(models.TextChoices):
    TRAIN = "train"
    TEST = "test"
    UNASSIGNED = "unassigned"


class Problem(models.Model):
    DEFAULT_MEMORY_MB = 512

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
        help_text="Default-validator settings (execution.checker).",
    )
    validator_source = models.TextField(
        blank=True, default="", help_text="A custom C++ output validator, when the problem has one."
    )
    validator_flags = models.CharField(max_length=200, blank=True, default="")
    origin = models.CharField(max_length=500, blank=True, default="", help_text="Imported from.")
    meta = models.JSONField(
        default=dict, blank=True, help_text="Source-specific facts (difficulty, cf_rating, ...)."
    )
    function_task = models.JSONField(
        default=dict,
        blank=True,
        help_text="The problem posed to models as one function: {name, request, harness} "
        "(lm.prompts.FunctionTask); empty: posed as its statement.",
    )
    discrimination = models.FloatField(
        null=True,
        blank=True,
        help_text="Slowest / fastest correct reference runtime on the optimization tests "
        "(median over tests), from the last dataset build.",
    )
    rank_stability = models.FloatField(
        null=True,
        blank=True,
        help_text="Mean share of reference pairs apart beyond the tie band that each repeat "
        "orders as their medians do, from the last dataset build.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class GeneratorSource(models.TextChoices):
    """problems.generators.SOURCES"""

    HAND = "hand"
    INFERRED = "inferred"
    LLM = "llm", "LLM"


class InputGenerator(models.Model):
    """A generator of the problem's inputs: imported with it (`hand`) or proposed by a dataset
    build (`inferred`, `llm`: each build replaces the previous build's of its sources), with
    the last build's validation (problems/generators/validate.py)."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="generators")
    name = models.CharField(max_length=100)
    code = models.TextField(
        blank=True, help_text="Python 3: `python3 gen.py SEED SIZE` prints one input."
    )
    source = models.CharField(
        max_length=10, choices=GeneratorSource.choices, default=GeneratorSource.HAND
    )
    provenance = models.JSONField(
        default=dict,
        blank=True,
        help_text="Where it came from (llm: model, prompt version...; inferred: the layout).",
    )
    report = models.JSONField(
        default=dict, blank=True, help_text="The last build's validation: checks and reasons."
    )
    valid = models.BooleanField(
        null=True, blank=True, help_text="The last validation's verdict; None: never validated."
    )
    sample_input = models.TextField(
        blank=True, default="", help_text="An input it printed at a small SIZE (truncated)."
    )

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
    answer_bytes = models.PositiveBigIntegerField(default=0, help_text="Uncompressed size.")
    generator = models.ForeignKey(
        InputGenerator, null=True, blank=True, on_delete=models.SET_NULL, related_name="tests"
    )
    seed = models.BigIntegerField(null=True, blank=True)
    size = models.PositiveIntegerField(null=True, blank=True)
    regenerate = models.BooleanField(
        default=False,
        help_text="The input is not stored: `generator` makes it again from seed and size "
        "(checked against input_sha256).",
    )
    input_sha256 = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["problem", "kind", "name"]
        constraints = [models.UniqueConstraint(fields=["problem", "name"], name="test_name")]

    @property
    def input_text(self) -> str:
        if self.regenerate:
            raise ValueError(f"{self.name}: the input is regenerated, not stored")
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


class ReferenceRuntime(models.Model):
    """One reference solution measured on one test: when, where, and how fast."""

    solution = models.ForeignKey(
        ReferenceSolution, on_delete=models.CASCADE, related_name="runtimes"
    )
    test = models.ForeignKey(ProblemTest, on_delete=models.CASCADE, related_name="runtimes")
    mode = models.CharField(max_length=12, help_text="cpu | wall | instructions")
    verdict = models.CharField(max_length=20)
    cost = models.FloatField(
        null=True, blank=True, help_text="Median seconds (cpu, wall) or instructions."
    )
    samples = models.JSONField(default=list, blank=True, help_text="Every repeat's cost.")
    measured_at = models.DateTimeField()
    machine = models.CharField(max_length=16, help_text="Machine fingerprint (short hash).")
    machine_facts = models.JSONField(default=dict, blank=True)
    purpose = models.CharField(
        max_length=12, default="build", help_text="build: the stored reference; calibration."
    )

    class Meta:
        ordering = ["test", "solution"]
        indexes = [models.Index(fields=["test", "mode", "purpose", "measured_at"])]


class DatasetBuild(Job):
    """One run of the construction pipeline (problems.pipeline) and its funnel."""

    started_by = models.CharField(max_length=150, blank=True, default="")
    config = models.JSONField(default=dict, help_text="PipelineConfig, as run.")
    problem_slugs = models.JSONField(default=list, blank=True, help_text="Empty: every problem.")
    funnel = models.JSONField(default=list, blank=True, help_text="[[stage, count], ...]")
    anchor_costs = models.JSONField(
        default=dict, blank=True, help_text="{anchor: CPU seconds} measured with the references."
    )
    generator_funnel = models.JSONField(
        default=dict,
        blank=True,
        help_text="Per generator source: proposed, valid, problems per stage because of it "
        "(problems.pipeline.BuildResult.generator_funnel).",
    )
    executions = models.PositiveIntegerField(default=0)
    wall_seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class ProblemBuild(models.Model):
    """What one build did with one problem: how far it got and why it stopped."""

    build = models.ForeignKey(DatasetBuild, on_delete=models.CASCADE, related_name="problems")
    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="builds")
    stage_reached = models.PositiveSmallIntegerField(help_text="Last stage passed (0-5).")
    kept = models.BooleanField(default=False)
    reason = models.TextField(blank=True, default="")
    report = models.JSONField(default=dict, blank=True, help_text="Per-stage details.")

    class Meta:
        ordering = ["build", "problem"]
        constraints = [
            models.UniqueConstraint(fields=["build", "problem"], name="one_result_per_build")
        ]


class Calibration(models.Model):
    """A drift fit `new ≈ a·old + b` between stored reference runtimes and a re-measurement."""

    created_at = models.DateTimeField(auto_now_add=True)
    mode = models.CharField(max_length=12)
    machine = models.CharField(max_length=16)
    slope = models.FloatField(help_text="a in new ≈ a·old + b")
    intercept = models.FloatField(help_text="b in new ≈ a·old + b (seconds or instructions)")
    spearman_before = models.FloatField(null=True)
    spearman_after = models.FloatField(null=True)
    pairs = models.PositiveIntegerField()
    points = models.JSONField(default=list, help_text="[[old, new], ...] as fitted.")
    problem_slugs = models.JSONField(default=list)

    class Meta:
        ordering = ["-created_at"]

    @property
    def formula(self) -> str:
        sign = "+" if self.intercept >= 0 else "−"
        return f"new ≈ {self.slope:.4f}·old {sign} {abs(self.intercept):.4f}"
