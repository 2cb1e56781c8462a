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
- the program failing a test makes it incorrect: no speed percentile (None).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TIMED_OUT = math.inf  # the cost of a run killed by a limit


@dataclass(frozen=True)
class Measured:
    """A cost (seconds or instructions; TIMED_OUT) on one test, and whether it was correct."""

    cost: float
    correct: bool


def percentile_on_test(program_cost: float, reference_costs: list[float]) -> float | None:
    if not reference_costs:
        return None
    if program_cost == TIMED_OUT:
        return 100.0
    faster = sum(1 for cost in reference_costs if cost < program_cost)
    ties = sum(1 for cost in reference_costs if cost == program_cost)
    return 100.0 * (faster + 0.5 * ties) / len(reference_costs)


def speed_percentile(
    program: dict[str, Measured],
    references: list[dict[str, Measured]],
    tests: list[str],
) -> float | None:
    """Mean per-test percentile of `program` over `tests` (see the module notes)."""
    scores = []
    for test in tests:
        mine = program.get(test)
        if mine is None or (not mine.correct and mine.cost != TIMED_OUT):
            return None
        costs = [r[test].cost for r in references if test in r and r[test].correct]
        score = percentile_on_test(mine.cost, costs)
        if score is not None:
            scores.append(score)
    return sum(scores) / len(scores) if scores else None
