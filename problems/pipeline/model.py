"""Plain data of the construction pipeline: its configuration, its input and its results."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from execution.checker import CheckerSettings
from foundation.typed import bounded, load_config, within_bounds
from problems.generators import SOURCES, Proposal
from problems.importers.kattis import MAX_TEST_BYTES, ImportedTest

UNTIMEABLE = "untimeable"  # the funnel's line of problems no input slows (BuildResult.funnel)
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

    max_references: int = bounded(12, 1, 1000)
    """Correct references used per problem (code_contests has hundreds); chosen by name."""
    verify_time_factor: float = bounded(2.0, 1, 100)
    """Stage 1 runs references with this many times the problem's time limit (another
    machine's limit is not this one's; a reference only fails by crashing or answering wrong
    or by running past this)."""
    generator_candidates: int = bounded(3, 1, 1000)
    """Stage 2: C candidate inputs per generator (G generators give G x C candidates)."""
    generator_cpu_s: float = bounded(20.0, 0, 600)
    """CPU seconds a generator may use for one input (one that loops is stopped there)."""
    correctness_sizes: tuple[int, ...] = bounded((2, 8, 25), 1, 1_000_000)
    """Stage 2: the SIZE argument of the candidates, cycled (small: they check correctness)."""
    min_agree: int = bounded(2, 1, 1000)
    """Stage 2: a candidate is kept when at least this many correct references print the
    same answer and they are a strict majority of the problem's correct references."""
    slow_target_s: float = bounded(1.0, 0, 60)
    """Stage 3: T_slow, the CPU seconds the slowest correct reference should need on an
    optimization test."""
    fast_fraction: float = bounded(0.5, 0, 1)
    """Stage 3: the fastest correct reference must stay under fast_fraction x T_slow."""
    min_fast_work_s: float = bounded(0.05, 0, 60)
    """Stage 3: the fastest correct reference should do at least this much CPU beyond the
    interpreter's start-up on an optimization test. Below it the work is the size of a
    single run's noise on a shared host (start-up alone is ~0.01 s here), so the ranks of
    fast programs, the ones near the bar, flip at random. SIZE grows past the slowest
    reference's T_slow (too-slow ones then time out at the stage 4 cap) until it does, or
    the report says why it cannot (the generator's largest SIZE, the cap)."""
    size_min: int = bounded(1, 1, 1_000_000)
    """Stage 3: the smallest SIZE the search probes."""
    size_max: int = bounded(100, 1, 1_000_000)
    """Stage 3: the largest SIZE passed to a generator (the pack's generators reach their
    statement's limits at 100)."""
    max_probes: int = bounded(7, 1, 100)
    """Stage 3: the bounded search over SIZE probes at most this many sizes per generator."""
    optimization_tests_per_generator: int = bounded(1, 1, 100)
    """Stage 3: optimization tests made from each generator at the chosen SIZE (seeds differ)."""
    infer_generators: bool = True
    """Before stage 2: propose a generator inferred from the layout of the problem's own
    test inputs and its statement's constraint lines (problems/generators/infer.py)."""
    llm_generators: bool = True
    """Before stage 2: ask a model for generators when an endpoint is configured
    (GENERATOR_LLM_* or JUDGE_LLM_* variables; problems/generators/llm.py)."""
    validation_size: int = bounded(8, 1, 1_000_000)
    """Generator validation: the small SIZE of the inputs every correct reference runs on
    (the pack's generators give at most a few thousand numbers there)."""
    validation_seeds: int = bounded(3, 2, 100)
    """Generator validation: seeds at validation_size (the first is generated twice: the
    same bytes; the seeds must not all give the same input)."""
    validation_min_inputs: int = bounded(2, 1, 100)
    """Generator validation: a generator is rejected when fewer of its validation_seeds
    inputs than this get one answer from every correct reference (an input a reference
    crashes on or disagrees on is dropped, never the reference)."""
    min_size_growth: float = bounded(2.0, 1, 1000)
    """Generator validation: at size_max the slowest correct reference must need this many
    times its CPU time at validation_size (a clear factor: one run's noise is far less) ..."""
    min_growth_s: float = bounded(0.01, 0, 60)
    """... and this many CPU seconds more, so that two runs of a few milliseconds (a C++
    reference's start-up) whose ratio is noise are not read as growth."""
    growth_probes: int = bounded(6, 0, 30)
    """Generator validation: where the statement states no bound, SIZE grows past size_max
    (each step growth_factor times the last) for at most this many probes, until the
    slowest correct reference needs slow_target_s (problems/generators/growth.py). 0: no
    growth, the generators stop at size_max."""
    growth_factor: float = bounded(4.0, 1, 100)
    """... each growth probe's SIZE is this many times the last one's."""
    max_input_bytes: int = bounded(MAX_TEST_BYTES, 1024, MAX_TEST_BYTES)
    """The size cap of a generated input (at every SIZE up to size_max): the cap an
    imported test must meet (problems/importers/kattis.MAX_TEST_BYTES) unless lowered."""
    repeats: int = bounded(3, 2, 100)
    """Stage 4: interleaved runs of every reference on every optimization test."""
    runtime_cap_factor: float = bounded(2.5, 1, 100)
    """Stage 4: a run is stopped at runtime_cap_factor x T_slow (too-slow references)."""
    ranking_language: str = "python"
    """Stage 4: the language whose correct references decide discrimination (a program is
    ranked among references in its own language; C++ next to Python would make every ratio
    huge). Empty: all languages together."""
    min_ratio: float = bounded(2.0, 1, 1000)
    """Stage 4: keep a problem when slowest / fastest correct reference (median over its
    optimization tests) reaches this. A correct reference stopped at the stage 4 cap counts
    as the cap there (its cost is at least that: the ratio is a lower bound)."""
    min_rank_stability: float = bounded(0.8, 0, 1)
    """Stage 4: ... and the rank stability reaches this: the mean over optimization tests and
    repeats of the share of pairs of references apart by more than rank_tie_band whose order
    in that repeat is their median order."""
    rank_tie_band: float = bounded(0.2, 0, 10)
    """Stage 4: two references whose median times are closer than this share of the smaller
    are tied for rank stability: CPU time of one run varies 4-21% between minutes on a shared
    host, so their order across repeats is noise (the ranking counts such a pair as half)."""
    test_fraction: float = bounded(0.25, 0, 1)
    """Stage 5: the share of kept problems in the test split (paper: 302 of 1,302)."""
    split_seed: str = "codeopt"
    """Stage 5: the split is a hash of split_seed and the slug: deterministic, and a problem
    keeps its split when others are added."""

    def check(self) -> None:
        """ValueError naming the first field the bounds cannot check (open intervals, rules
        across fields)."""
        within_bounds(self)
        for name in ("generator_cpu_s", "slow_target_s", "fast_fraction", "min_fast_work_s"):
            if getattr(self, name) == 0:
                raise ValueError(f"{name}: must be positive")
        if not self.correctness_sizes:
            raise ValueError("correctness_sizes: at least one size")
        if self.size_min > self.size_max:
            raise ValueError("size_min: must be at most size_max")
        if self.validation_size >= self.size_max:
            raise ValueError("validation_size: must be under size_max (growth compares them)")
        if self.growth_factor <= 1:
            raise ValueError("growth_factor: must be over 1 (each probe's SIZE grows by it)")
        if self.validation_min_inputs > self.validation_seeds:
            raise ValueError("validation_min_inputs: must be at most validation_seeds")

    def as_dict(self) -> dict:
        data = asdict(self)
        data["correctness_sizes"] = list(self.correctness_sizes)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> PipelineConfig:
        """A checked config from plain data (a stored build); ValueError naming the field."""
        return load_config(cls, data)

    @classmethod
    def from_text(cls, data: dict) -> PipelineConfig:
        """A checked config from a form's or a command line's values (text parsed strictly:
        `repeats=2.7` is an error, not 2); ValueError naming the field."""
        return load_config(cls, data, text=True)


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
    generators: dict[str, str] = field(default_factory=dict)  # hand-written: name -> code
    validator_sources: list[Path] = field(default_factory=list)
    validator_flags: tuple[str, ...] = ()
    statement: str = ""  # what the inferred and LLM generator sources read
    memory_mb: int = 512


def written_source_problem(
    problem,
    folder: Path,
    tests: Iterable[ImportedTest],
    solutions: list[SourceSolution],
    generators: dict[str, str],
) -> SourceProblem:
    """The pipeline input of a problem, its own `tests` and its validator written under
    `folder`. `problem` is one as imported (problems.importers' ImportedProblem) or as stored
    (a problems.models.Problem): both name slug, time_limit_s, checker (a dict), statement,
    validator_source, validator_flags (text) and memory_limit_mb alike; what each holds in
    its own way (tests, solutions, hand-written generators) comes in read."""
    written = []
    for index, test in enumerate(tests):
        input_path, answer_path = folder / f"own-{index}.in", folder / f"own-{index}.ans"
        input_path.write_bytes(test.input)
        answer_path.write_bytes(test.answer)
        written.append(SourceTest(test.name, test.kind, input_path, answer_path))
    validators = []
    if problem.validator_source:
        validators = [folder / "validator.cpp"]
        validators[0].write_text(problem.validator_source)
    return SourceProblem(
        slug=problem.slug,
        time_limit_s=problem.time_limit_s,
        checker=CheckerSettings(**problem.checker),
        tests=written,
        solutions=solutions,
        generators=generators,
        validator_sources=validators,
        validator_flags=tuple(problem.validator_flags.split()),
        statement=problem.statement,
        memory_mb=problem.memory_limit_mb or SourceProblem.memory_mb,
    )


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
class ValidatedGenerator:
    """A proposed generator and its validation (problems/generators/validate.Report as
    plain data); only valid ones feed stages 2-3."""

    proposal: Proposal
    report: dict

    @property
    def valid(self) -> bool:
        return bool(self.report.get("valid"))


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
    generators: list[ValidatedGenerator] = field(default_factory=list)
    generator_sources: list[str] = field(default_factory=list)  # the sources that proposed
    untimeable: bool = False  # stopped at stage 3: no input its generators make slows any reference

    def sources_of(self, kind: str) -> set[str]:
        """The sources whose generators made this problem's new tests of `kind`."""
        source = {g.proposal.name: g.proposal.source for g in self.generators}
        return {source[t.generator] for t in self.new_tests if t.kind == kind}


@dataclass
class BuildResult:
    outcomes: list[ProblemOutcome]
    executions: int
    wall_seconds: float

    def funnel(self) -> list[tuple[str, int]]:
        """[(stage, problems that passed it)], then the problems refused as untimeable (at
        stage 3: no input slows any reference) and the split of the kept ones."""
        counts = [
            (name, sum(1 for o in self.outcomes if o.stage_reached >= index))
            for index, name in enumerate(STAGES)
        ]
        kept = [o for o in self.outcomes if o.kept]
        counts.append((UNTIMEABLE, sum(1 for o in self.outcomes if o.untimeable)))
        counts.append(("train", sum(1 for o in kept if o.split == "train")))
        counts.append(("test", sum(1 for o in kept if o.split == "test")))
        return counts

    def generator_funnel(self) -> dict:
        """Per generator source: generators proposed and valid, the problems with a proposal
        and with a valid one, and the problems that passed stages 2-4 because of it (its
        generators made their consensus correctness tests, stage 2, or their optimization
        tests, stages 3 and 4), counted in `stages` and, when no other source took part,
        in `alone`. Problems that never reached the validation (stopped at stage 1) count
        nowhere."""
        rows = {}
        because = {STAGES[2]: "correctness", STAGES[3]: "optimization", STAGES[4]: "optimization"}
        for source in SOURCES:
            row = rows[source] = {
                "proposed": 0,
                "valid": 0,
                "problems_proposed": 0,
                "problems_valid": 0,
                "stages": dict.fromkeys(because, 0),
                "alone": dict.fromkeys(because, 0),
            }
            for outcome in self.outcomes:
                mine = [g for g in outcome.generators if g.proposal.source == source]
                row["proposed"] += len(mine)
                row["valid"] += sum(g.valid for g in mine)
                row["problems_proposed"] += bool(mine)
                row["problems_valid"] += any(g.valid for g in mine)
                for stage, kind in because.items():
                    sources = outcome.sources_of(kind)
                    if outcome.stage_reached >= STAGES.index(stage) and source in sources:
                        row["stages"][stage] += 1
                        row["alone"][stage] += sources == {source}
        return {"stages": list(because), "sources": rows}
