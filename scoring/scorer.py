"""Scoring rollouts: run each generated program in the sandbox, check it, time it on the
problem's optimization tests and turn that into a reward through the run's reward
configuration (rewards.engine), ranking against the problem's stored human references.
Plain Python, no Django: the timing worker (or a local thread, on one machine) calls it.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from execution.checker import CheckerSettings
from execution.degraded import DegradedTiming
from execution.engine import Case, Program, lowest_cost, measure
from execution.isolation import SandboxError
from execution.noise import rank_jitter, repeat_stats
from execution.retries import SANDBOX_ERROR, counted
from execution.sandbox import Limits
from foundation.ranking import Ties
from rewards.engine import ProblemRuntimes, RewardConfig, rewards, speed_percentiles

FORMAT = "FORMAT"  # no program in the completion
REFERENCE = "ref:"  # measured-program names of the re-measured references


def _cost_row(results, mode: str = "cpu") -> np.ndarray:
    """(T,) costs of one measured program in `mode`: the lowest run where it finished, inf
    where it was stopped by the time limit, nan where it failed (not correct there)."""
    row = np.full(len(results), np.nan)
    for column, result in enumerate(results):
        if result.verdict == "OK":
            cost = lowest_cost(result, mode)
            row[column] = np.nan if cost is None else cost
        elif result.verdict == "TIME_LIMIT":
            row[column] = math.inf
    return row


def _median_gap(reports) -> float:
    """Median over (program, test) of (second lowest - lowest) / lowest; 0 without repeats."""
    gaps = []
    for report in reports:
        for result in report.tests:
            if result.verdict == "OK" and len(result.cpu_samples) >= 2:
                low, second = sorted(result.cpu_samples)[:2]
                if low > 0:
                    gaps.append((second - low) / low)
    return float(np.median(gaps)) if gaps else 0.0


def _round_samples(result, mode: str) -> list[float]:
    """A run's times per timing round in `mode` (instructions: one count, no rounds)."""
    return result.wall_samples if mode == "wall" else result.cpu_samples


def _round_costs(results, round_index: int, mode: str = "cpu") -> np.ndarray:
    """(T,) costs of one measured program in one timing round: that round's run where it
    finished, inf where it was stopped by the time limit, nan where it failed."""
    row = np.full(len(results), np.nan)
    for column, result in enumerate(results):
        if result.verdict == "OK":
            row[column] = _round_samples(result, mode)[round_index]
        elif result.verdict == "TIME_LIMIT":
            row[column] = math.inf
    return row


def reference_rank_jitter(reference_reports, ties: Ties, mode: str = "cpu") -> float | None:
    """Rank jitter of the re-measured references (execution.noise.rank_jitter), the
    mean over them: in each timing round, each reference's speed percentile among the other
    references from that round's runs alone; a reference's jitter is the range of its
    percentiles over the rounds. None with fewer than 2 references or 2 rounds on every
    test. From single runs: an upper bound of the rank noise left in the rewards, which rank
    the lowest of the rounds."""
    reports = list(reference_reports)
    finished = [r for report in reports for r in report.tests if r.verdict == "OK"]
    rounds = min((len(_round_samples(r, mode)) for r in finished), default=0)
    if len(reports) < 2 or rounds < 2:
        return None
    every = np.ones(len(reports[0].tests), dtype=bool)
    percentiles: list[list[float | None]] = [[] for _ in reports]
    for round_index in range(rounds):
        costs = np.vstack([_round_costs(report.tests, round_index, mode) for report in reports])
        for i in range(len(reports)):
            others = np.delete(costs, i, axis=0)
            value = float(speed_percentiles(costs[i : i + 1], others, every, ties)[0])
            percentiles[i].append(None if math.isnan(value) else value)
    jitters = [j for j in map(rank_jitter, percentiles) if j is not None]
    return statistics.fmean(jitters) if jitters else None


def repeat_cv(reports) -> float | None:
    """Median over (program, test) of the CV of its repeated CPU times (noise.repeat_stats),
    every measured program, references included; None without a test run twice."""
    cvs = [
        stats.cv
        for report in reports
        for result in report.tests
        if result.verdict == "OK"
        and len(result.cpu_samples) >= 2
        and (stats := repeat_stats(result.cpu_samples)).cv is not None
    ]
    return statistics.median(cvs) if cvs else None


@dataclass
class ScoringProblem:
    slug: str
    runtimes: ProblemRuntimes  # human references on the optimization tests, in `optimization` order
    correctness: list[Case]  # small tests: a program must pass them all to be timed
    optimization: list[Case]
    checker: CheckerSettings = field(default_factory=CheckerSettings)
    cap_s: float = 10.0
    """CPU seconds a program may take on one optimization test (a run past it is timed out)."""
    reference_programs: dict[str, str] = field(default_factory=dict)
    """name -> Python source of the correct references, the rows of `runtimes` (same
    names): re-measured beside the programs when the reward config's reference_timing is
    interleaved. Empty: ranked against the stored runtimes."""


@dataclass
class Score:
    reward: float
    verdict: str  # OK, a sandbox verdict, or FORMAT
    correct: bool
    speed_percentile: float | None  # among the human references; None unless correct
    costs: list[float | None]  # CPU seconds per optimization test (inf: timed out)
    seconds: float = 0.0  # wall time spent scoring this program's group
    tie_band: float | None = None  # the noise band the group was ranked with
    # timing noise of the group's scoring (the same in each of its scores, like `seconds`)
    rank_jitter: float | None = None  # reference_rank_jitter; None unless re-measured
    repeat_cv: float | None = None  # repeat_cv over the group's measurements
    sandbox_errors: int = 0  # sandbox starts that failed while scoring the group (retried)
    host_factor: float | None = None  # the host's calibration the costs were divided by


def score_group(
    programs: list[str | None],
    problem: ScoringProblem,
    config: RewardConfig,
    *,
    step: int = 0,
    workdir: Path | None = None,
    host_factor: float = 1.0,
    degraded: DegradedTiming | None = None,
    group_index: int = 0,
    mode: str = "cpu",
) -> list[Score]:
    """Scores of one group (the G programs of one prompt), in order. `mode` is what the
    optimization tests are timed by (execution.engine.MODES): training and
    evaluations score in `cpu`; `wall` and `instructions` (timing diagnostics) need
    the references re-measured in the same job (`reference_timing: interleaved`).

    1. No program: verdict FORMAT, incorrect.
    2. Every program runs once on the correctness tests (interleaved) until it fails one;
       the first failure is its verdict.
    3. The correct ones run on the optimization tests, capped at `cap_s`, up to
       `config.timing_repeats` rounds (fewer once all settled), pinned to one core; with
       `reference_timing` interleaved, the problem's references run in the same rounds.
       A program's cost on a test is the lowest of its runs (engine.lowest_cost).
       Ranked against stored references, the costs are divided by `host_factor` (this
       host's anchor cost / the references' host's: scoring/calibration.py), which
       puts them on the stored references' scale; re-measured references need no factor.
    4. The ties are the config's (tie_band, tie_ramp); with `noise_band_factor` the band is
       widened to that many times the median gap between the two lowest runs of everything
       measured (the noise this job saw).
    5. With an active `degraded` (experiments: execution/degraded.py), the
       programs' costs and the references' they are ranked among are degraded on purpose,
       from the generator of (its seed, `step`, `group_index`). It acts on the costs the
       ranking sees, after the lowest of the repeats, so the repeats cannot undo it; the
       stored references' filters and limits are left as they are. The scores' `costs` are
       the degraded ones.
    6. rewards.engine turns costs and correctness into rewards (filters, limits, ranking
       against the references, re-measured or stored, combination, gating) and speed
       percentiles.
    """
    started = time.monotonic()
    interleave = config.reference_timing == "interleaved" and bool(problem.reference_programs)
    if mode != "cpu" and not interleave:  # the stored runtimes are CPU seconds
        raise ValueError(f"mode: {mode!r} ranks only against references re-measured with it")
    tests = len(problem.optimization)
    verdicts = ["OK" if p is not None else FORMAT for p in programs]
    runnable = {f"p{i}": p for i, p in enumerate(programs) if p is not None}
    if runnable and problem.correctness:
        reports = measure(
            [Program(name, source, "python") for name, source in runnable.items()],
            problem.correctness,
            limits=Limits(cpu_seconds=max(problem.cap_s, 2.0), wall_seconds=3 * problem.cap_s + 5),
            repeats=1,
            checker=problem.checker,
            workdir=workdir,
            stop_at_failure=True,  # its first failure is its verdict
        )
        for name, report in reports.items():
            failed = next((t.verdict for t in report.tests if t.verdict != "OK"), None)
            if failed:
                verdicts[int(name[1:])] = failed
    costs = np.full((len(programs), tests), np.nan)
    timed = {n: s for n, s in runnable.items() if verdicts[int(n[1:])] == "OK"}
    ranking = problem.runtimes.reference_costs
    ties = config.ties
    jitter = cv = None
    if timed and tests:
        measured = [Program(name, source, "python") for name, source in timed.items()]
        references = list(problem.reference_programs.items()) if interleave else []
        measured += [Program(REFERENCE + name, code, "python") for name, code in references]
        reports = measure(
            measured,
            problem.optimization,
            limits=Limits(cpu_seconds=problem.cap_s, wall_seconds=3 * problem.cap_s + 5),
            mode=mode,
            repeats=config.timing_repeats,
            settle=config.timing_settle or None,
            checker=problem.checker,
            workdir=workdir,
        )
        if config.noise_band_factor:
            ties = ties.widened(config.noise_band_factor * _median_gap(reports.values()))
        cv = repeat_cv(reports.values())
        if interleave:
            jitter = reference_rank_jitter(
                [reports[REFERENCE + name] for name, _ in references], ties, mode
            )
            ranking = np.vstack(
                [_cost_row(reports[REFERENCE + name].tests, mode) for name, _ in references]
            )  # (R, T)
        for name, report in reports.items():
            if name.startswith(REFERENCE):
                if any(r.verdict == SANDBOX_ERROR for r in report.tests):  # no ranking without it
                    raise SandboxError(f"{problem.slug}: a reference's run failed in the sandbox")
                continue
            row = int(name[1:])
            costs[row] = _cost_row(report.tests, mode)
            failed = next(
                (r.verdict for r in report.tests if r.verdict not in ("OK", "TIME_LIMIT")), None
            )
            if failed and verdicts[row] == "OK":
                verdicts[row] = failed  # wrong on a large input
    if SANDBOX_ERROR in verdicts:  # not the programs' fault: never a reward (see below)
        raise SandboxError(f"{problem.slug}: a run of the group failed in the sandbox")
    applied = None if interleave else host_factor
    if applied is not None and applied != 1.0:
        costs = costs / applied  # inf stays inf, nan stays nan
    if degraded is not None and degraded.active:
        rng = degraded.generator(step, group_index)
        costs = degraded.apply(costs, rng)  # (P, T), then the references' (R, T)
        ranking = degraded.apply(ranking, rng)
    correct = np.array([v == "OK" for v in verdicts])
    values = rewards(
        config, problem.runtimes, costs, correct, step, ranking_costs=ranking, ties=ties
    )
    every = np.ones(tests, dtype=bool)
    percentiles = speed_percentiles(costs, ranking, every, ties)
    elapsed = time.monotonic() - started
    return [
        Score(
            reward=float(values[i]),
            verdict=verdicts[i],
            correct=bool(correct[i]),
            speed_percentile=(
                float(percentiles[i]) if correct[i] and not math.isnan(percentiles[i]) else None
            ),
            costs=[None if math.isnan(c) else float(c) for c in costs[i]],
            seconds=elapsed,
            tie_band=ties.band,
            rank_jitter=jitter,
            repeat_cv=cv,
            host_factor=applied,
        )
        for i in range(len(programs))
    ]


SANDBOX_RESCORES = 2
"""Times a group is scored again after one of its runs ended SANDBOX_ERROR, before the
scoring fails (retryable): a sandbox failure must never become a negative reward."""


def score_group_retrying(
    programs: list[str | None],
    problem: ScoringProblem,
    config: RewardConfig,
    *,
    step: int = 0,
    workdir: Path | None = None,
    host_factor: float = 1.0,
    degraded: DegradedTiming | None = None,
    group_index: int = 0,
) -> list[Score]:
    """`score_group`, the whole group scored again (rewards are relative to the group) when
    a run of it, a program's or a re-measured reference's, ended SANDBOX_ERROR; the scores
    carry the sandbox errors of every scoring (`Score.sandbox_errors`). Raises SandboxError
    when the group still fails after SANDBOX_RESCORES more scorings."""
    error: Exception | None = None
    errors = 0  # failed sandbox starts over every scoring of the group
    for _ in range(SANDBOX_RESCORES + 1):
        with counted() as sandbox:
            try:
                scores = score_group(
                    programs,
                    problem,
                    config,
                    step=step,
                    workdir=workdir,
                    host_factor=host_factor,
                    degraded=degraded,
                    group_index=group_index,
                )
            except SandboxError as exc:
                error = exc
                continue
            finally:
                errors += sandbox.errors
        if not sandbox.gave_up:
            return [dataclasses.replace(score, sandbox_errors=errors) for score in scores]
        error = SandboxError(sandbox.last_error)
    raise SandboxError(
        f"{problem.slug}: still failing in the sandbox after {SANDBOX_RESCORES + 1} "
        f"scorings: {error}"
    )


@dataclass
class RankCheck:
    """The same programs scored `remeasure` times, independently: each program's speed
    percentiles and their range (rank jitter, execution.noise.rank_jitter)."""

    percentiles: dict[str, list[float | None]]
    jitter: dict[str, float | None]
    tie_bands: list[float]
    seconds: float


def rank_check(
    programs: dict[str, str],
    problem: ScoringProblem,
    config: RewardConfig,
    *,
    remeasure: int = 5,
    workdir: Path | None = None,
    on_progress=None,
    mode: str = "cpu",
) -> RankCheck:
    """Score `programs` (name -> Python source; a problem's own correct references make a
    ground truth that is known to be correct) `remeasure` times as one group each time, as
    training and evaluations do (timed in `mode`: score_group), and report how far each
    one's speed percentile moves."""
    started = time.monotonic()
    names = list(programs)
    percentiles: dict[str, list[float | None]] = {name: [] for name in names}
    bands = []
    for index in range(remeasure):
        if on_progress is not None:
            on_progress(index, remeasure, f"re-measurement {index + 1}")
        scores = score_group(
            [programs[n] for n in names], problem, config, workdir=workdir, mode=mode
        )
        for name, score in zip(names, scores, strict=True):
            percentiles[name].append(score.speed_percentile)
        bands.append(scores[0].tie_band if scores else 0.0)
    return RankCheck(
        percentiles,
        {name: rank_jitter(values) for name, values in percentiles.items()},
        bands,
        time.monotonic() - started,
    )
