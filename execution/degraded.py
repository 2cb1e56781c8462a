"""A deliberately degraded timing service, for experiments: the paper (section 5) compares
its robust recipe with standard RLVR "with a deliberately degraded sandbox". The measured
costs a group is ranked with are perturbed on purpose, programs and references alike,
before ranking, as a bad measurement would have perturbed them:

- multiplicative log-normal noise of a given CV on every cost (the CV of one unpinned run
  on a shared host measured 20-45% here: docs/benchmarks.md, "What moved the figure");
- with a given probability a cost is further slowed by a factor drawn uniformly from
  SLOWDOWN_FACTORS, as a busy neighbour slows one run.

Plain Python: the scorer (scoring/scorer.py) applies it to the costs it ranks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

SLOWDOWN_FACTORS = (1.5, 3.0)
"""A slowed run takes this many times as long, uniformly between the two (measured here: an
unpinned 73 ms loop took up to 136 ms, x1.9; one run beside a CPU burner 187 ms against a
91 ms median, x2.1: docs/benchmarks.md; x3 exaggerates it, on purpose)."""


def degrade_costs(
    costs: Sequence[float], cv: float, slowdown_rate: float, rng: random.Random
) -> list[float]:
    """`costs` each multiplied by log-normal noise of coefficient of variation `cv` (mean 1:
    sigma² = ln(1 + cv²), mu = -sigma²/2) and, with probability `slowdown_rate`, by a factor
    drawn uniformly from SLOWDOWN_FACTORS. inf stays inf, nan stays nan; every cost draws the
    same numbers whatever its value, so a position's perturbation depends on the generator
    and its index only. With cv = 0 and slowdown_rate = 0 the costs come back unchanged and
    nothing is drawn from `rng`.

    Draws per cost, in this order: lognormvariate (when cv > 0), random (when slowdown_rate
    > 0), uniform (when that random number fell below slowdown_rate)."""
    if cv < 0 or not 0 <= slowdown_rate <= 1:
        raise ValueError(f"cv must be >= 0 and slowdown_rate in [0, 1], not {cv}, {slowdown_rate}")
    if cv == 0 and slowdown_rate == 0:
        return list(costs)
    sigma = math.sqrt(math.log1p(cv * cv))
    mu = -sigma * sigma / 2
    degraded = []
    for cost in costs:
        factor = rng.lognormvariate(mu, sigma) if cv > 0 else 1.0
        if slowdown_rate > 0 and rng.random() < slowdown_rate:
            factor *= rng.uniform(*SLOWDOWN_FACTORS)
        degraded.append(cost * factor)
    return degraded


@dataclass(frozen=True)
class DegradedTiming:
    """The degradation of one training run (or scoring request): its two settings and the
    seed that makes it repeatable (the run's seed; each group's generator comes from the
    seed, the step and the group's index in the step)."""

    cv: float = 0.0
    slowdown_rate: float = 0.0
    seed: int = 0

    @property
    def active(self) -> bool:
        return self.cv > 0 or self.slowdown_rate > 0

    def generator(self, step: int, group_index: int) -> random.Random:
        """The generator of a group's degradation: the same (seed, step, group) draws the
        same numbers on any worker (a text seed hashes the same in every process)."""
        return random.Random(f"degraded-timing:{self.seed}:{step}:{group_index}")

    def apply(self, costs: np.ndarray, rng: random.Random) -> np.ndarray:
        """`costs` (any shape) degraded by degrade_costs, in row-major order."""
        flat = degrade_costs(costs.ravel().tolist(), self.cv, self.slowdown_rate, rng)
        return np.array(flat, dtype=float).reshape(costs.shape)

    def description(self) -> str:
        low, high = SLOWDOWN_FACTORS
        return (
            f"log-normal noise of CV {100 * self.cv:g}% on every measured cost, programs and "
            f"references alike; {100 * self.slowdown_rate:g}% of costs slowed "
            f"x{low:g}-x{high:g}"
        )

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> DegradedTiming | None:
        """The degradation a scoring request carries; None when it carries none."""
        if not data:
            return None
        return cls(float(data["cv"]), float(data["slowdown_rate"]), int(data["seed"]))
