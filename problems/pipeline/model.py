"""Plain data of the construction pipeline: its configuration, its input and its results."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from workers.execution.checker import CheckerSettings

STAGES = (
    "candidates",
    "references verified",
    "consensus correctness tests",
    "optimization tests",
    "time-discriminative",
)


@dataclass
class PipelineConfig:
    """Every threshold of the construction pipeline; stored verbatim with each build."""

    max_references: int = 12
    """Correct references used per problem (code_contests has hundreds); chosen by name."""
    verify_time_factor: float = 2.0
    """Stage 1 runs references with this many times the problem's time limit (another
    machine's limit is not this one's; a reference only fails by crashing or answering wrong
    or by running past this)."""
    generator_candidates: int = 3
    """Stage 2: C candidate inputs per generator (G generators give G x C candidates)."""
    generator_cpu_s: float = 20.0
    """CPU seconds a generator may use for one input (one that loops is stopped there)."""
    correctness_sizes: tuple[int, ...] = (2, 8, 25)
    """Stage 2: the SIZE argument of the candidates, cycled (small: they check correctness)."""
    min_agree: int = 2
    """Stage 2: a candidate is kept when at least this many correct references print the
    same answer and they are a strict majority of the problem's correct references."""
    slow_target_s: float = 1.0
    """Stage 3: T_slow, the CPU seconds the slowest correct reference should need on an
    optimization test."""
    fast_fraction: float = 0.5
    """Stage 3: the fastest correct reference must stay under fast_fraction x T_slow."""
    size_min: int = 1
    size_max: int = 100
    max_probes: int = 7
    """Stage 3: the bounded search over SIZE probes at most this many sizes per generator."""
    optimization_tests_per_generator: int = 1
    repeats: int = 3
    """Stage 4: interleaved runs of every reference on every optimization test."""
    runtime_cap_factor: float = 2.5
    """Stage 4: a run is stopped at runtime_cap_factor x T_slow (too-slow references)."""
    ranking_language: str = "python"
    """Stage 4: the language whose correct references decide discrimination (a program is
    ranked among references in its own language; C++ next to Python would make every ratio
    huge). Empty: all languages together."""
    min_ratio: float = 2.0
    """Stage 4: keep a problem when slowest / fastest correct reference (median over its
    optimization tests) reaches this."""
    min_rank_stability: float = 0.8
    """Stage 4: ... and the mean Spearman correlation of each repeat's order of the
    references with their median order reaches this."""
    test_fraction: float = 0.25
    """Stage 5: the share of kept problems in the test split (paper: 302 of 1,302)."""
    split_seed: str = "codeopt"
    """Stage 5: the split is a hash of split_seed and the slug: deterministic, and a problem
    keeps its split when others are added."""

    def check(self) -> None:
        """ValueError naming the first field out of range."""
        positive = (
            "max_references",
            "verify_time_factor",
            "generator_cpu_s",
            "min_agree",
            "slow_target_s",
            "max_probes",
            "repeats",
            "runtime_cap_factor",
        )
        for name in positive:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name}: must be positive")
        if self.generator_candidates < 0 or self.optimization_tests_per_generator < 1:
            raise ValueError("generator_candidates/optimization_tests_per_generator: out of range")
        if not self.correctness_sizes or min(self.correctness_sizes) < 1:
            raise ValueError("correctness_sizes: at least one size, each at least 1")
        if not 1 <= self.size_min <= self.size_max:
            raise ValueError("size_min: must be at least 1 and at most size_max")
        if not 0 < self.fast_fraction <= 1:
            raise ValueError("fast_fraction: must be in (0, 1]")
        if self.repeats < 2:
            raise ValueError("repeats: at least 2 (rank stability compares repeats)")
        if self.min_ratio < 1:
            raise ValueError("min_ratio: must be at least 1")
        if not 0 <= self.test_fraction <= 1:
            raise ValueError("test_fraction: must be in [0, 1]")

    def as_dict(self) -> dict:
        data = asdict(self)
        data["correctness_sizes"] = list(self.correctness_sizes)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> PipelineConfig:
        """A config from stored or submitted values; ValueError naming an unknown field."""
        known = {f.name: f for f in fields(cls)}
        values = {}
        for name, value in data.items():
            if name not in known:
                raise ValueError(f"{name}: not a pipeline setting")
            default = getattr(cls(), name)
            try:
                if isinstance(default, tuple):
                    items = value.split(",") if isinstance(value, str) else value
                    values[name] = tuple(int(v) for v in items)
                else:
                    values[name] = type(default)(value)
            except (TypeError, ValueError):
                raise ValueError(f"{name}: {value!r} is not a {type(default).__name__}") from None
        config = cls(**values)
        config.check()
        return config


@dataclass
class SourceTest:
    """A test the problem came with (its answer is trusted)."""

    name: str
    kind: str  # sample | correctness
    input_path: Path
    answer_path: Path


@dataclass
class SourceSolution:
    name: str
    language: str
    code: str
    label: str  # accepted | too_slow | wrong


@dataclass
class SourceProblem:
    slug: str
    time_limit_s: float
    checker: CheckerSettings
    tests: list[SourceTest]
    solutions: list[SourceSolution]
    generators: dict[str, str] = field(default_factory=dict)  # name -> code
    validator_sources: list[Path] = field(default_factory=list)
    validator_flags: tuple[str, ...] = ()


@dataclass
class NewTest:
    """A test the pipeline made: its input comes back from generator + seed + size."""

    name: str
    kind: str  # correctness | optimization
    generator: str
    seed: int
    size: int
    input: bytes
    answer: bytes
    sha256: str
    agreeing: list[str]  # the references whose output is the answer


@dataclass
class Runtime:
    solution: str
    test: str
    verdict: str
    cost: float | None  # median CPU seconds; None when the run did not finish
    samples: list[float]
    purpose: str = "build"  # build: optimization tests (stage 4); verify: own tests (stage 1)


@dataclass
class ProblemOutcome:
    slug: str
    stage_reached: int = 0  # the last stage passed (0: candidate only)
    kept: bool = False
    reason: str = ""  # why it stopped (empty when kept)
    split: str = "unassigned"
    discrimination: float | None = None
    rank_stability: float | None = None
    report: dict = field(default_factory=dict)
    new_tests: list[NewTest] = field(default_factory=list)
    runtimes: list[Runtime] = field(default_factory=list)
    executions: int = 0


@dataclass
class BuildResult:
    outcomes: list[ProblemOutcome]
    executions: int
    wall_seconds: float

    def funnel(self) -> list[tuple[str, int]]:
        """[(stage, problems that passed it)], then the split of the kept ones."""
        counts = [
            (name, sum(1 for o in self.outcomes if o.stage_reached >= index))
            for index, name in enumerate(STAGES)
        ]
        kept = [o for o in self.outcomes if o.kept]
        counts.append(("train", sum(1 for o in kept if o.split == "train")))
        counts.append(("test", sum(1 for o in kept if o.split == "test")))
        return counts
