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
- costs within the noise band (`Ties.band`, a share of the smaller cost) are a tie the
  machine cannot tell apart: a reference counts as faster by exactly 1/2. Beyond the band a
  comparison is *graded* over `Ties.ramp`: the share runs linearly in log(cost ratio) from
  1/2 at the band's edge to 1 (or 0) at the ramp's end (`faster_share`, the one definition).
  Why both: a hard edge (1/2 inside, 0 or 1 outside) moved a rank by a whole comparison
  whenever a ratio near the edge crossed it; a ramp from equal costs on (no flat band)
  made every near-equal pair follow the timer's noise, and a program among near-equal
  references moved by several points between scorings (docs/benchmarks.md, rank jitter).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TIMED_OUT = math.inf  # the cost of a run killed by a limit
DEFAULT_TIE_BAND = 0.08
"""The noise band by default: on this project's shared 2-vCPU host the lowest of 5-10 pinned,
interleaved runs of the same program repeats within ~1.5-3% (sd of the log ratio between a
program and its own copy), so two costs within 8% are ~3-5 sd apart at most: a tie."""
DEFAULT_TIE_RAMP = 0.30
"""The graded width beyond the band by default (decided beyond 1.08 x 1.30 = 1.40x). Chosen
on the same samples as the rules it replaced (benchmarks/rank_estimators.py, idle and
loaded, docs/benchmarks.md): it had the lowest worst case over both conditions with 5 and
10 rounds (rank jitter p95 2.07 and 1.61), against 3.4-5.7 for the 15% ramp from equal
costs; narrower ramps were steadier with 10 rounds and idle, less so with 5."""
FAILED = math.nan  # the cost of a run that failed (wrong answer, crash) or is missing: no time


@dataclass(frozen=True)
class Ties:
    """When two costs count as a tie: within `band` (a share of the smaller cost) exactly
    1/2; graded over a further `ramp` (a share beyond the band's edge); decided outside.
    Ties() is exact: 1/2 only for equal costs."""

    band: float = 0.0
    ramp: float = 0.0

    def widened(self, band: float) -> Ties:
        """The same rule with its band at least `band` (the noise a job measured)."""
        return Ties(max(self.band, band), self.ramp)


EXACT = Ties()
DEFAULT_TIES = Ties(DEFAULT_TIE_BAND, DEFAULT_TIE_RAMP)


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


def faster_share(other, program, ties: Ties = EXACT):
    """How much `other` counts as faster than `program` (costs, scalars or arrays that
    broadcast), in [0, 1], by `ties`: with x = log(program / other) (> 0: other is cheaper),
    1/2 while |x| <= log(1 + band), then linear in |x| up to 1 (x > 0) or down to 0 at
    |x| = log(1 + band) + log(1 + ramp), decided beyond; with ramp 0 it steps at the band's
    edge. A finished run is faster than a timed-out one (1 or 0); two timed-out runs tie
    (1/2). nan stays nan. faster_share(a, b) + faster_share(b, a) == 1."""
    other, program = np.asarray(other, dtype=float), np.asarray(program, dtype=float)
    band, ramp = math.log1p(ties.band), math.log1p(ties.ramp)
    with np.errstate(invalid="ignore", divide="ignore"):
        log_ratio = np.log(program) - np.log(other)  # > 0: other is cheaper
        beyond = np.abs(log_ratio) - band  # > 0: outside the tie
        if ramp > 0:
            step = np.clip(beyond / ramp, 0.0, 1.0)
        else:
            step = np.where(beyond > 0, 1.0, 0.0)
        share = 0.5 + 0.5 * np.sign(log_ratio) * step
    share = np.where(np.isnan(log_ratio), np.nan, share)
    return np.where(other == program, 0.5, share)  # equal, both timed out, both zero


def percentile_on_test(
    program_cost: float, reference_costs: list[float], ties: Ties = EXACT
) -> float | None:
    if not reference_costs:
        return None
    if program_cost == TIMED_OUT:
        return 100.0
    faster = sum(float(faster_share(cost, program_cost, ties)) for cost in reference_costs)
    return 100.0 * faster / len(reference_costs)


def speed_percentile(
    program: dict[str, Measured],
    references: list[dict[str, Measured]],
    tests: list[str],
    ties: Ties = EXACT,
) -> float | None:
    """Mean per-test percentile of `program` over `tests` (see the module notes)."""
    if failed([run_cost(program.get(test)) for test in tests]):
        return None
    scores = []
    for test in tests:
        mine = program[test]
        costs = [r[test].cost for r in references if test in r and r[test].correct]
        score = percentile_on_test(mine.cost, costs, ties)
        if score is not None:
            scores.append(score)
    return sum(scores) / len(scores) if scores else None
