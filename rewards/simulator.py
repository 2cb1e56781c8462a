"""Offline reward simulator (paper, section 3): rank reward configurations before any GPU is
spent. Plain Python + numpy.

Human references stand in for model outputs: each reference plays a program whose quality is
its speed percentile among the other references (measured without noise; quality 1 = faster
than all, 0 = slower than all), and stored runtimes stand in for live measurement, re-drawn
with multiplicative log-normal noise of a chosen coefficient of variation (the paper's
"degraded sandbox"). For each configuration and noise level:

- curve: mean reward per quality decile;
- monotonicity: Spearman's rho between quality and reward, pooled over problems;
- signal density: share of problems whose reward is not constant across references;
- all-negative rate: for group size G, the probability that G programs drawn from a problem's
  references all get the same negative reward (averaged over problems): no gradient;
- flags: "flat" (signal density under 10% or monotonicity under 0.3) and "extremes only"
  (the decile curve moves only between the first and last deciles).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import spearmanr

from rewards.engine import ProblemRuntimes, RewardConfig, rewards, speed_percentiles

DECILES = 10
FLAT_DENSITY = 0.1
FLAT_MONOTONICITY = 0.3


@dataclass
class NoiseResult:
    noise_cv: float
    monotonicity: float | None
    signal_density: float
    all_negative_rate: float
    curve: list[float | None]  # mean reward per quality decile (None: no reference there)


@dataclass
class ConfigResult:
    name: str
    by_noise: list[NoiseResult] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


def qualities(problem: ProblemRuntimes) -> np.ndarray:
    """(R,) each reference's quality: 1 - its speed percentile among the others / 100."""
    costs = problem.reference_costs
    count = costs.shape[0]
    result = np.empty(count)
    everything = np.ones(costs.shape[1], dtype=bool)
    for index in range(count):
        others = np.delete(costs, index, axis=0)
        result[index] = speed_percentiles(costs[index : index + 1], others, everything)[0]
    return 1.0 - result / 100.0


def _noisy(costs: np.ndarray, cv: float, rng: np.random.Generator) -> np.ndarray:
    if cv <= 0:
        return costs
    sigma = math.sqrt(math.log(1 + cv * cv))
    factors = rng.lognormal(-sigma * sigma / 2, sigma, size=costs.shape)  # mean 1
    return np.where(np.isfinite(costs), costs * factors, costs)


def all_negative_probability(values: np.ndarray, group_size: int) -> float:
    """P(G draws, with replacement, all get the same negative reward)."""
    negatives = values[values < 0]
    if not len(negatives):
        return 0.0
    _, counts = np.unique(negatives, return_counts=True)
    return float(np.sum((counts / len(values)) ** group_size))


def simulate(
    configs: list[RewardConfig],
    problems: list[ProblemRuntimes],
    *,
    noise_cvs: tuple[float, ...] = (0.0, 0.05, 0.2),
    group_size: int = 16,
    seed: int = 0,
) -> list[ConfigResult]:
    """Every configuration at every noise level on every problem (module notes)."""
    if group_size < 1:
        raise ValueError("group_size: must be at least 1")
    if not problems:
        raise ValueError("problems: none with reference runtimes")
    quality = [qualities(p) for p in problems]
    results = []
    for config in configs:
        result = ConfigResult(config.name)
        for cv in noise_cvs:
            rng = np.random.default_rng(seed)
            all_quality, all_reward, varying, negative = [], [], 0, []
            for problem, problem_quality in zip(problems, quality, strict=True):
                measured = _noisy(problem.reference_costs, cv, rng)
                correct = np.ones(len(problem_quality), dtype=bool)
                values = rewards(config, problem, measured, correct)
                all_quality.append(problem_quality)
                all_reward.append(values)
                varying += int(np.ptp(values) > 0)
                negative.append(all_negative_probability(values, group_size))
            q, r = np.concatenate(all_quality), np.concatenate(all_reward)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # constant rewards: rho is NaN
                rho = spearmanr(q, r).statistic
            bins = np.minimum((q * DECILES).astype(int), DECILES - 1)
            curve = [
                float(np.mean(r[bins == b])) if np.any(bins == b) else None for b in range(DECILES)
            ]
            result.by_noise.append(
                NoiseResult(
                    noise_cv=cv,
                    monotonicity=None if math.isnan(rho) else float(rho),
                    signal_density=varying / len(problems),
                    all_negative_rate=float(np.mean(negative)),
                    curve=curve,
                )
            )
        result.flags = _flags(result.by_noise[0])
        results.append(result)
    return results


def _flags(noiseless: NoiseResult) -> list[str]:
    flags = []
    if (
        noiseless.signal_density < FLAT_DENSITY
        or noiseless.monotonicity is None
        or noiseless.monotonicity < FLAT_MONOTONICITY
    ):
        flags.append("flat")
    middle = [v for v in noiseless.curve[1:-1] if v is not None]
    ends = [v for v in (noiseless.curve[0], noiseless.curve[-1]) if v is not None]
    if middle and ends and np.ptp(middle) == 0 and np.ptp(middle + ends) > 0:
        flags.append("extremes only")
    return flags
