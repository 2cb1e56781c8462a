"""Timing noise by mode on real references (the paper's first diagnostic, PAPER.md s.2):
how far a program's speed percentile among the human references moves between scorings,
per timing mode, on an idle host and beside a bounded load. Plain Python, no Django.

The paper saw the same program's percentile rank jump by ~41 points between repeats on
its busy training hosts and by ~2 on an isolated execution service. Here:

- the programs are a built problem's own correct Python references (correct by
  construction, their true order known);
- `wall` (the naive clock) and `cpu` (what training ranks by): the programs are scored
  together as one group, again and again, through the path training and evaluations
  score with (scoring.scorer.rank_check: references re-measured in the same
  rounds, the lowest of the repeats, graded ties), timed by that clock;
- `instructions` (valgrind counts, deterministic): each scoring counts every program once
  and ranks each among the others with the same ties (`counted_rank_check`; the scorer's
  path would count every reference twice, as candidate and as reference, and Python's
  start-up alone costs ~4 s under valgrind);
- the conditions are `idle` and `loaded`: busy processes, one per core by default,
  started before the condition's scorings and stopped after them
  (execution.load.busy_load);
- rank jitter (docs/metrics.md; execution.noise.rank_jitter) is the range of one
  program's percentile over the re-scorings; each (mode, condition) reports its median,
  95th percentile and maximum over the programs, in percentile points.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from execution.engine import Program, measure
from execution.load import busy_load, cores_available
from execution.noise import rank_jitter
from execution.sandbox import Limits
from foundation.ranking import Ties
from rewards.engine import RewardConfig, speed_percentiles
from scoring.scorer import RankCheck, ScoringProblem, rank_check

MODES_COMPARED = ("wall", "cpu", "instructions")
CONDITIONS = ("idle", "loaded")
DETERMINISTIC_MODES = ("instructions",)
PAPER_RANK_JITTER = {"busy training hosts": 41.0, "isolated service": 2.0}
"""PAPER.md s.2: percentile points a program's rank moved between repeats, shown beside
ours as reference marks (never as our results)."""


@dataclass(frozen=True)
class NoiseProblem:
    slug: str
    programs: dict[str, str]
    """name -> Python source: the problem's correct references, re-scored as one group."""
    scoring: ScoringProblem
    """Its tests and references as the scorer takes them (reference_programs set: every
    mode ranks against references re-measured in the same job)."""


@dataclass(frozen=True)
class ModeNoiseSettings:
    remeasure: int = 5
    """Scorings of each group per (mode, condition) in the timed modes; rank jitter is the
    range over them (benchmarks/rank_jitter.py uses 5)."""
    deterministic_remeasure: int = 2
    """Scorings in `instructions` mode: counts do not vary, two scorings show whether the
    rank does (a program's run costs 4-9 s under valgrind, against ~0.1-0.3 s timed)."""
    modes: tuple[str, ...] = MODES_COMPARED
    conditions: tuple[str, ...] = CONDITIONS
    load_processes: int | None = None
    """Busy processes of the `loaded` condition; None: one per core this process may use
    (2 on the project's 2-core host, the benchmarks' load)."""
    ranking: RewardConfig = field(default_factory=lambda: RewardConfig(name="noise-by-mode"))
    """The ranking settings (tie band and ramp, timing repeats and settling, re-measured
    references); the defaults are what a reward configuration gets unless it says
    otherwise."""

    def check(self) -> None:
        """ValueError naming the first bad field."""
        if self.remeasure < 2 or self.deterministic_remeasure < 2:
            raise ValueError("remeasure: at least 2 scorings are needed for a range")
        unknown = [m for m in self.modes if m not in MODES_COMPARED]
        if not self.modes or unknown:
            raise ValueError(f"modes: each must be one of {', '.join(MODES_COMPARED)}")
        if not self.conditions or any(c not in CONDITIONS for c in self.conditions):
            raise ValueError(f"conditions: each must be one of {', '.join(CONDITIONS)}")
        if self.load_processes is not None and self.load_processes < 1:
            raise ValueError("load_processes: at least 1 (or None: one per core)")
        if self.ranking.reference_timing != "interleaved":
            raise ValueError("ranking: wall and instructions need re-measured references")
        self.ranking.check()

    def scorings(self, mode: str) -> int:
        return self.deterministic_remeasure if mode in DETERMINISTIC_MODES else self.remeasure

    def busy_processes(self) -> int:
        return self.load_processes if self.load_processes is not None else cores_available()


FULL = ModeNoiseSettings()
QUICK = ModeNoiseSettings(remeasure=2)
"""Two scorings each, the paper's "between repeats": with one problem of 7 references
(timing/fidelity.py) 8.8 minutes on the project's 2-core host beside other
sessions' work (load average 5-8), half of it in valgrind; 3 scorings took 10 minutes
(`manage.py noise_by_mode --quick`, big-sum, 2026-12-05)."""


@dataclass
class JitterSummary:
    """Rank jitter over a set of programs, in percentile points."""

    programs: int
    not_always_correct: int  # programs without a percentile in some scoring: no jitter
    p50: float | None
    p95: float | None
    max: float | None


def jitter_summary(jitters: list[float | None]) -> JitterSummary:
    """The median, 95th percentile and maximum of the programs' rank jitters (None: a
    program not correct in every scoring, counted apart)."""
    found = [j for j in jitters if j is not None]
    if not found:
        return JitterSummary(len(jitters), len(jitters), None, None, None)
    return JitterSummary(
        programs=len(jitters),
        not_always_correct=len(jitters) - len(found),
        p50=round(statistics.median(found), 2),
        p95=round(float(np.percentile(found, 95)), 2),
        max=round(max(found), 2),
    )


@dataclass
class ModeNoiseCell:
    """One (mode, condition): the jitter summary over every program of every problem."""

    mode: str
    condition: str
    summary: JitterSummary
    problems: int
    scorings: int
    seconds: float
    per_program: dict[str, dict[str, float | None]]  # slug -> program -> jitter


@dataclass
class ModeNoise:
    cells: list[ModeNoiseCell]
    problems: list[str]
    programs: int
    remeasure: int
    deterministic_remeasure: int
    load_processes: int
    ranking: dict
    seconds: float

    def cell(self, mode: str, condition: str) -> ModeNoiseCell:
        return next(c for c in self.cells if (c.mode, c.condition) == (mode, condition))

    def as_dict(self) -> dict:
        """Plain JSON-able data: `results[mode][condition]` holds p50, p95, max (percentile
        points), programs, not_always_correct, problems, scorings, seconds, per_program."""
        results: dict[str, dict[str, dict]] = {}
        for cell in self.cells:
            results.setdefault(cell.mode, {})[cell.condition] = {
                **asdict(cell.summary),
                "problems": cell.problems,
                "scorings": cell.scorings,
                "seconds": round(cell.seconds, 1),
                "per_program": cell.per_program,
            }
        return {
            "results": results,
            "modes": list(dict.fromkeys(c.mode for c in self.cells)),
            "conditions": list(dict.fromkeys(c.condition for c in self.cells)),
            "problems": self.problems,
            "programs": self.programs,
            "remeasure": self.remeasure,
            "deterministic_remeasure": self.deterministic_remeasure,
            "load_processes": self.load_processes,
            "ranking": self.ranking,
            "seconds": round(self.seconds, 1),
            "paper": PAPER_RANK_JITTER,
        }


Progress = Callable[[int, int, str], None]


def counted_rank_check(
    programs: dict[str, str],
    problem: ScoringProblem,
    ties: Ties,
    *,
    remeasure: int = 2,
    workdir: Path | None = None,
) -> RankCheck:
    """Rank jitter in `instructions` mode (rank_check's result, counts for times): each of
    `remeasure` scorings counts every program once on the problem's optimization tests
    (valgrind, one run each: counts do not vary) and ranks each among the others by
    `ties`, as the scorer ranks (rewards.engine.speed_percentiles). A run that is not
    correct has no percentile; a timed-out one is slower than every other."""
    started = time.monotonic()
    names = list(programs)
    every = np.ones(len(problem.optimization), dtype=bool)
    percentiles: dict[str, list[float | None]] = {name: [] for name in names}
    for _ in range(remeasure):
        reports = measure(
            [Program(name, programs[name], "python") for name in names],
            problem.optimization,
            limits=Limits(cpu_seconds=problem.cap_s, wall_seconds=3 * problem.cap_s + 5),
            mode="instructions",
            checker=problem.checker,
            workdir=workdir,
        )
        counts = np.vstack([_counts(reports[name].tests) for name in names])  # (P, T)
        for index, name in enumerate(names):
            others = np.delete(counts, index, axis=0)
            value = float(speed_percentiles(counts[index : index + 1], others, every, ties)[0])
            percentiles[name].append(None if math.isnan(value) else value)
    return RankCheck(
        percentiles,
        {name: rank_jitter(values) for name, values in percentiles.items()},
        [ties.band] * remeasure,
        time.monotonic() - started,
    )


def _counts(results) -> np.ndarray:
    """(T,) instruction counts of one program: nan where it failed or has no count, inf
    where it timed out."""
    row = np.full(len(results), np.nan)
    for column, result in enumerate(results):
        if result.verdict == "OK" and result.instructions is not None:
            row[column] = result.instructions
        elif result.verdict == "TIME_LIMIT":
            row[column] = math.inf
    return row


def _rank_check(
    problem: NoiseProblem, mode: str, settings: ModeNoiseSettings, workdir: Path | None
) -> RankCheck:
    if mode in DETERMINISTIC_MODES:
        return counted_rank_check(
            problem.programs,
            problem.scoring,
            settings.ranking.ties,
            remeasure=settings.scorings(mode),
            workdir=workdir,
        )
    return rank_check(
        problem.programs,
        problem.scoring,
        settings.ranking,
        remeasure=settings.scorings(mode),
        workdir=workdir,
        mode=mode,
    )


def measure_mode_noise(
    problems: list[NoiseProblem],
    settings: ModeNoiseSettings = FULL,
    *,
    workdir: Path | None = None,
    on_progress: Progress | None = None,
) -> ModeNoise:
    """Rank jitter of each problem's programs per (mode, condition).

    1. For each condition: start its load (`loaded`: settings.busy_processes() busy
       processes; `idle`: none), and stop it when the condition's scorings end, also on
       an error.
    2. Under it, for each mode and problem: score the problem's programs
       settings.scorings(mode) times in that mode (wall, cpu: rank_check, as one group;
       instructions: counted_rank_check), each program's rank jitter the range of its
       percentiles.
    3. Summarize each (mode, condition) over every program of every problem.

    `on_progress(done, total, label)` is called before each (condition, mode, problem),
    the label naming them ("loaded: cpu, sort-numbers"), while that condition's load runs.
    """
    settings.check()
    if not problems:
        raise ValueError("problems: at least one built problem is needed")
    started = time.monotonic()
    total = len(settings.conditions) * len(settings.modes) * len(problems)
    done = 0
    cells = []
    for condition in settings.conditions:
        with busy_load(settings.busy_processes() if condition == "loaded" else 0):
            for mode in settings.modes:
                jitters: list[float | None] = []
                per_program: dict[str, dict[str, float | None]] = {}
                seconds = 0.0
                for problem in problems:
                    if on_progress is not None:
                        on_progress(done, total, f"{condition}: {mode}, {problem.slug}")
                    check = _rank_check(problem, mode, settings, workdir)
                    per_program[problem.slug] = {
                        name: None if value is None else round(value, 2)
                        for name, value in check.jitter.items()
                    }
                    jitters += list(check.jitter.values())
                    seconds += check.seconds
                    done += 1
                cells.append(
                    ModeNoiseCell(
                        mode,
                        condition,
                        jitter_summary(jitters),
                        len(problems),
                        settings.scorings(mode),
                        seconds,
                        per_program,
                    )
                )
    if on_progress is not None:
        on_progress(total, total, "done")
    return ModeNoise(
        cells=cells,
        problems=[p.slug for p in problems],
        programs=sum(len(p.programs) for p in problems),
        remeasure=settings.remeasure,
        deterministic_remeasure=settings.deterministic_remeasure,
        load_processes=settings.busy_processes() if "loaded" in settings.conditions else 0,
        ranking=settings.ranking.as_dict(),
        seconds=time.monotonic() - started,
    )
