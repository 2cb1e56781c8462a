"""Speed percentile: where a program's runtime falls among correct human references.

Plain Python. For one test, the program's percentile is the share of correct references
that are faster than it, ties counting half (mid-rank), times 100: 0 means faster than every
reference, 100 slower than all. The speed percentile of a program is the mean over the tests
that count (the optimization tests when the problem has them, else every test).

Explicit cases:
- a reference that failed a test (wrong, crashed) is not a correct reference for that test;
- a reference that timed out on a test is correct-but-slower than any program that finished;
- the program timing out on a test scores 100 there (slower than every reference);
- a test with no correct reference is left out; with no test left the percentile is None;
- the program failing a test (a missing run, or a wrong one that did not time out: it has no
  time, cost FAILED) makes it incorrect: no speed percentile (None), so it is never fast
  (`failed`, the one rule, which rewards.engine applies too);
- costs within the noise band (`tie_band`, a share of the smaller cost) are a tie the
  machine cannot tell apart, *graded*: a reference counts as faster than the program by a
  share that runs from 1/2 at equal costs linearly in log(cost ratio) to 1 (or 0) at the
  band's edge (`faster_share`, the one definition). A hard tie (a whole 1/2 inside the
  band, 0 or 1 outside) made the rank jump by a whole comparison whenever a ratio near the
  edge crossed it; graded, a rank moves in proportion to the measured noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TIMED_OUT = math.inf  # the cost of a run killed by a limit
DEFAULT_TIE_BAND = 0.15
"""The noise band by default: on this project's shared 2-vCPU host the lowest of 5 pinned
runs repeats within ~1-3% most of the time, but a whole test's runs of one program can land
in a slow spell 10-30% high, and a single run can be 50% off. With the lowest of up to 5
interleaved runs, a 0.10 band left the built sort-numbers programs' ranks moving by up to
7 points, 0.15 by up to 3.6 (docs/benchmarks.md, rank jitter)."""
FAILED = math.nan  # the cost of a run that failed (wrong answer, crash) or is missing: no time


def failed(costs, counted=True):
    """The rule for failed runs, here and in rewards.engine: a program with a FAILED cost on
    a test it is ranked on has no speed percentile, so it never counts as fast, whatever
    the correctness gating. (A TIMED_OUT run has a cost: slower than every reference.)
    costs (..., T) and counted (T,) -> (...,) bool; a list of one program's costs -> bool."""
    return np.any(np.isnan(np.asarray(costs, dtype=float)) & counted, axis=-1)


@dataclass(frozen=True)
class Measured:
    """A cost (seconds or instructions; TIMED_OUT) on one test, and whether it was correct."""

    cost: float
    correct: bool


def run_cost(measured: Measured | None) -> float:
    """The cost ranking reads: TIMED_OUT, the cost of a correct run, or FAILED (missing, or
    wrong without timing out)."""
    if measured is None or (not measured.correct and measured.cost != TIMED_OUT):
        return FAILED
    return measured.cost


def faster_share(other, program, tie_band: float = 0.0):
    """How much `other` counts as faster than `program` (costs, scalars or arrays that
    broadcast), in [0, 1]: 1 when other is cheaper by more than `tie_band` of the smaller
    cost, 0 when dearer by more, 1/2 for equal costs and linear in log(program / other) in
    between. With tie_band 0: 1, 0, or 1/2 for exactly equal costs. A finished run is
    faster than a timed-out one (1 or 0); two timed-out runs tie (1/2). nan stays nan.
    faster_share(a, b) + faster_share(b, a) == 1."""
    other, program = np.asarray(other, dtype=float), np.asarray(program, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        log_ratio = np.log(program) - np.log(other)  # > 0: other is cheaper
        width = math.log1p(tie_band)
        if width > 0:
            share = np.clip(0.5 + 0.5 * log_ratio / width, 0.0, 1.0)
        else:
            share = np.where(log_ratio > 0, 1.0, 0.0)
    share = np.where(np.isnan(log_ratio), np.nan, share)
    return np.where(other == program, 0.5, share)  # equal, both timed out, both zero


def percentile_on_test(
    program_cost: float, reference_costs: list[float], tie_band: float = 0.0
) -> float | None:
    if not reference_costs:
        return None
    if program_cost == TIMED_OUT:
        return 100.0
    faster = sum(float(faster_share(cost, program_cost, tie_band)) for cost in reference_costs)
    return 100.0 * faster / len(reference_costs)


def speed_percentile(
    program: dict[str, Measured],
    references: list[dict[str, Measured]],
    tests: list[str],
    tie_band: float = 0.0,
) -> float | None:
    """Mean per-test percentile of `program` over `tests` (see the module notes)."""
    if failed([run_cost(program.get(test)) for test in tests]):
        return None
    scores = []
    for test in tests:
        mine = program[test]
        costs = [r[test].cost for r in references if test in r and r[test].correct]
        score = percentile_on_test(mine.cost, costs, tie_band)
        if score is not None:
            scores.append(score)
    return sum(scores) / len(scores) if scores else None
