"""Scoring rollouts: run each generated program in the sandbox, check it, time it on the
problem's optimization tests and turn that into a reward through the run's reward
configuration (rewards.engine), ranking against the problem's stored human references.
Plain Python, no Django: the timing worker (or a local thread, on one machine) calls it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rewards.engine import ProblemRuntimes, RewardConfig, rewards, speed_percentiles
from workers.execution.checker import CheckerSettings
from workers.execution.engine import Case, Program, measure
from workers.execution.sandbox import Limits

FORMAT = "FORMAT"  # no program in the completion


@dataclass
class ScoringProblem:
    slug: str
    runtimes: ProblemRuntimes  # human references on the optimization tests, in `optimization` order
    correctness: list[Case]  # small tests: a program must pass them all to be timed
    optimization: list[Case]
    checker: CheckerSettings = field(default_factory=CheckerSettings)
    cap_s: float = 10.0
    """CPU seconds a program may take on one optimization test (a run past it is timed out)."""


@dataclass
class Score:
    reward: float
    verdict: str  # OK, a sandbox verdict, or FORMAT
    correct: bool
    speed_percentile: float | None  # among the human references; None unless correct
    costs: list[float | None]  # CPU seconds per optimization test (inf: timed out)
    seconds: float = 0.0  # wall time spent scoring this program's group


def score_group(
    programs: list[str | None],
    problem: ScoringProblem,
    config: RewardConfig,
    *,
    step: int = 0,
    workdir: Path | None = None,
) -> list[Score]:
    """Scores of one group (the G programs of one prompt), in order.

    1. No program: verdict FORMAT, incorrect.
    2. Every program runs once on the correctness tests (interleaved); the first failure is
       its verdict.
    3. The correct ones run once each on the optimization tests, capped at `cap_s`.
    4. rewards.engine turns costs and correctness into rewards (filters, limits, ranking
       against the references, combination, gating) and speed percentiles.
    """
    started = time.monotonic()
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
        )
        for name, report in reports.items():
            failed = next((t.verdict for t in report.tests if t.verdict != "OK"), None)
            if failed:
                verdicts[int(name[1:])] = failed
    costs = np.full((len(programs), tests), np.nan)
    timed = {n: s for n, s in runnable.items() if verdicts[int(n[1:])] == "OK"}
    if timed and tests:
        reports = measure(
            [Program(name, source, "python") for name, source in timed.items()],
            problem.optimization,
            limits=Limits(cpu_seconds=problem.cap_s, wall_seconds=3 * problem.cap_s + 5),
            repeats=1,
            checker=problem.checker,
            workdir=workdir,
        )
        for name, report in reports.items():
            row = int(name[1:])
            for column, result in enumerate(report.tests):
                if result.verdict == "OK":
                    costs[row, column] = result.cpu_s
                elif result.verdict == "TIME_LIMIT":
                    costs[row, column] = math.inf
                elif verdicts[row] == "OK":
                    verdicts[row] = result.verdict  # wrong on a large input
    correct = np.array([v == "OK" for v in verdicts])
    values = rewards(config, problem.runtimes, costs, correct, step)
    every = np.ones(tests, dtype=bool)
    percentiles = speed_percentiles(costs, problem.runtimes.reference_costs, every)
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
        )
        for i in range(len(programs))
    ]
