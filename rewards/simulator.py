"""Offline reward simulator (paper, section 3): rank reward configurations before any GPU is
spent. Plain Python + numpy, vectorised over problems, references and tests.

Human references stand in for model outputs: each reference plays a program whose quality is
its speed percentile among the *other* references on the stored runtimes (quality 1 = faster
than all of them, 0 = slower than all). Stored runtimes stand in for live measurement: at
each noise level the program's run is re-drawn with multiplicative log-normal noise of that
coefficient of variation (the paper's "degraded sandbox") and ranked against the others'
stored runtimes, exactly as a model's program would be. Every configuration sees the same
noise draws at a given level (common random numbers), so differences between configurations
are not noise.

For each configuration and noise level:

1. curve: mean reward per quality decile;
2. monotonicity: Spearman's rho between quality and reward, pooled over problems;
3. signal density: share of problems whose reward is not constant across references;
4. all-negative rate: for group size G, the probability that G programs drawn (uniformly, with
   replacement) from a problem's references all get the same negative reward, averaged over
   problems: such a group has no gradient.
5. concordance: Goodman and Kruskal's gamma between quality and reward over the pairs of
   programs of the same problem (a GRPO group compares only those): (concordant - discordant)
   / (pairs whose rewards differ). Unlike rho it does not depend on how many programs pass a
   bar (rho of a two-valued reward peaks when half pass, so noise that lets more programs
   over a strict bar can raise it); without noise a reward that never falls with quality
   has 1, and noise lowers it by handing the better program of a pair the lower reward;
6. wrong paid share: each reference that ran plays a *wrong* answer at its measured speed;
   the share of them whose reward beats the same wrong answer timed out (on some step, for
   alternating) is speed credit without correctness, what the paper's correctness gating
   forbids (0 for every gated configuration).

Flags (on the noiseless level): "flat" when signal density is under 10% or monotonicity under
0.3; "extremes only" when the decile curve is constant over the middle deciles and moves only
at the first or last. Warnings (not flags): a high all-negative rate, and monotonicity lost to
noise.

The "alternating" combination is scored on the expected reward over a pair of steps (one
correctness step, one speed step); its all-negative rate is the mean of the two steps'.

Negative control, never for training: `rank_against="own_outputs"` ranks each program against
re-measurements of programs of its own quality (what ranking against the policy's own earlier
samples becomes once they track the policy). The percentile then says nothing about quality:
the simulator shows monotonicity near 0 and flags it. It is not a RewardConfig field on
purpose, so no stored configuration can train with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy.stats import rankdata

from foundation.ranking import EXACT, Ties, failed
from rewards.engine import (
    ProblemRuntimes,
    RewardConfig,
    combine,
    counted_tests,
    mean_over_counted,
    program_time_limits,
    shares_faster,
)

DECILES = 10
FLAT_DENSITY = 0.1
FLAT_MONOTONICITY = 0.3
WARN_ALL_NEGATIVE = 0.4  # the paper saw 40-50% all-negative groups early in training
WARN_MONOTONICITY_DROP = 0.3
RANK_AGAINST = ("references", "own_outputs")


@dataclass
class NoiseResult:
    noise_cv: float
    monotonicity: float | None
    signal_density: float
    all_negative_rate: float
    curve: list[float | None]  # mean reward per quality decile (None: no reference there)
    wrong_paid_share: float = 0.0  # wrong answers paid for their speed (module notes, 6)
    concordance: float | None = None  # gamma within problems (module notes, 5); None: no pair


@dataclass
class ConfigResult:
    name: str
    by_noise: list[NoiseResult] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        return bool(self.flags)

    def as_dict(self) -> dict:
        return {**asdict(self), "flagged": self.flagged}


@dataclass
class ProblemBatch:
    """N problems padded to R references and T tests; padding is nan."""

    costs: np.ndarray  # (N, R, T)
    input_chars: np.ndarray  # (N, T)
    output_chars: np.ndarray  # (N, T)
    present: np.ndarray  # (N, R) bool: a real reference, not padding

    @classmethod
    def of(cls, problems: list[ProblemRuntimes]) -> ProblemBatch:
        if not problems:
            raise ValueError("problems: none with reference runtimes")
        n = len(problems)
        r = max(p.reference_costs.shape[0] for p in problems)
        t = max(p.reference_costs.shape[1] for p in problems)
        costs = np.full((n, r, t), np.nan)
        input_chars = np.zeros((n, t))
        output_chars = np.zeros((n, t))
        present = np.zeros((n, r), dtype=bool)
        for index, problem in enumerate(problems):
            refs, tests = problem.reference_costs.shape
            costs[index, :refs, :tests] = problem.reference_costs
            input_chars[index, :tests] = problem.input_chars
            output_chars[index, :tests] = problem.output_chars
            present[index, :refs] = True
        return cls(costs, input_chars, output_chars, present)


def noisy(costs: np.ndarray, cv: float, rng: np.random.Generator) -> np.ndarray:
    """Costs times log-normal factors of mean 1 and coefficient of variation `cv`;
    timed-out (inf) and missing (nan) runs stay as they are."""
    if cv <= 0:
        return costs
    sigma = math.sqrt(math.log(1 + cv * cv))
    factors = rng.lognormal(-sigma * sigma / 2, sigma, size=costs.shape)
    return np.where(np.isfinite(costs), costs * factors, costs)


def leave_one_out_percentiles(
    measured: np.ndarray, stored: np.ndarray, ties: Ties = EXACT
) -> np.ndarray:
    """(N, R, T): each reference's measured cost ranked against the *other* references'
    stored costs (share faster, near costs tied or graded by `ties`, x 100; timed out 100; nan:
    no other reference), by the engine's one rule (rewards.engine.shares_faster).
    measured, stored: (N, R, T)."""
    programs = measured[:, :, None, :]  # (N, R, 1, T)
    others = stored[:, None, :, :]  # (N, 1, R, T)
    valid = ~np.isnan(others) & ~np.eye(stored.shape[1], dtype=bool)[None, :, :, None]
    return shares_faster(programs, others, valid, measured, ties, axis=2)


def own_output_percentiles(
    measured: np.ndarray, pool: np.ndarray, ties: Ties = EXACT
) -> np.ndarray:
    """(N, R, T): the negative control: each program ranked against `pool` (N, R, K, T),
    fresh re-measurements of itself (the policy's earlier outputs, of the same quality)."""
    return shares_faster(measured[:, :, None, :], pool, ~np.isnan(pool), measured, ties, axis=2)


def own_output_pool(
    measured: np.ndarray, cv: float, pool_size: int, rng: np.random.Generator
) -> np.ndarray:
    """(N, R, K, T) `pool_size` noisy re-measurements of each program."""
    return noisy(np.repeat(measured[:, :, None, :], pool_size, axis=2), cv, rng)


def qualities(problem: ProblemRuntimes) -> np.ndarray:
    """(R,) each reference's quality: 1 - its speed percentile among the others / 100."""
    return _qualities(ProblemBatch.of([problem]))[0]


def _qualities(batch: ProblemBatch) -> np.ndarray:
    per_test = leave_one_out_percentiles(batch.costs, batch.costs)
    every = np.ones(batch.costs.shape[::2], dtype=bool)  # (N, T)
    quality = 1.0 - mean_over_counted(per_test, every) / 100.0  # (N, R); nan: padding
    return np.where(failed(batch.costs, every[:, None, :]), np.nan, quality)  # failed: none


def all_negative_probability(values: np.ndarray, group_size: int) -> float:
    """P(G draws, with replacement, all get the same negative reward) for one problem."""
    return float(
        _all_negative_rates(values[None, :], np.ones((1, len(values)), bool), group_size)[0]
    )


def _all_negative_rates(values: np.ndarray, present: np.ndarray, group_size: int) -> np.ndarray:
    """(N,) sum over distinct negative rewards v of (share of references scoring v)^G.
    Each reference adds (its value's share)^G / (its value's count), so every distinct value
    is counted once. values, present: (N, R)."""
    same = (values[:, :, None] == values[:, None, :]) & present[:, None, :]  # (N, R, R)
    counts = same.sum(axis=2)  # (N, R)
    totals = present.sum(axis=1, keepdims=True)  # (N, 1)
    share = counts / np.maximum(totals, 1)
    terms = np.where(present & (values < 0), share**group_size / np.maximum(counts, 1), 0.0)
    return terms.sum(axis=1)


@dataclass
class _Level:
    """One noise level's draws, shared by every configuration."""

    cv: float
    measured: np.ndarray  # (N, R, T)
    stored: np.ndarray  # (N, R, T)
    pool: np.ndarray | None  # (N, R, K, T) the own-output pool of the negative control
    by_ties: dict[Ties, np.ndarray] = field(default_factory=dict)

    def percentiles(self, ties: Ties) -> np.ndarray:
        """(N, R, T) before limits, with the configuration's tie rule (computed once)."""
        if ties not in self.by_ties:
            self.by_ties[ties] = (
                leave_one_out_percentiles(self.measured, self.stored, ties)
                if self.pool is None
                else own_output_percentiles(self.measured, self.pool, ties)
            )
        return self.by_ties[ties]


def simulate(
    configs: list[RewardConfig],
    problems: list[ProblemRuntimes],
    *,
    noise_cvs: tuple[float, ...] = (0.0, 0.05, 0.2),
    group_size: int = 16,
    seed: int = 0,
    rank_against: str = "references",
    on_progress: Callable[[int, int], None] | None = None,
) -> list[ConfigResult]:
    """Every configuration at every noise level on every problem (module notes).
    on_progress(done, total) is called after each (noise level, configuration)."""
    if group_size < 1:
        raise ValueError("group_size: must be at least 1")
    if not noise_cvs:
        raise ValueError("noise_cvs: give at least one noise level")
    if any(not math.isfinite(cv) or cv < 0 for cv in noise_cvs):
        raise ValueError("noise_cvs: each must be a number >= 0")
    if rank_against not in RANK_AGAINST:
        raise ValueError(f"rank_against: {rank_against!r} is not one of {RANK_AGAINST}")
    for config in configs:
        config.check()
    batch = ProblemBatch.of(problems)
    quality = _qualities(batch)  # (N, R)
    present = batch.present  # every reference draws rewards, a failed one too
    ranked = present & ~np.isnan(quality)  # those with a quality (not failed): for monotonicity
    quality_flat = quality[ranked]
    quality_ranks = rankdata(quality_flat)
    bins = np.minimum((quality_flat * DECILES).astype(int), DECILES - 1)
    bin_counts = np.bincount(bins, minlength=DECILES)
    pairs = better_pairs(quality, ranked)

    levels = []
    for cv in noise_cvs:
        rng = np.random.default_rng([seed, int(round(cv * 1e6))])
        measured = noisy(batch.costs, cv, rng)
        pool = None
        if rank_against != "references":
            pool = own_output_pool(measured, cv, max(batch.costs.shape[1] - 1, 1), rng)
        levels.append(_Level(cv, measured, batch.costs, pool))

    counted_cache: dict[tuple, np.ndarray] = {}
    limits_cache: dict[tuple, np.ndarray] = {}
    total, done = len(configs) * len(levels), 0
    results = [ConfigResult(config.name) for config in configs]
    for level in levels:
        for config, result in zip(configs, results, strict=True):
            filters = (
                config.max_mean_reference_s,
                config.max_input_chars,
                config.max_output_chars,
                config.fastest_tests_fraction,
            )
            if filters not in counted_cache:
                counted_cache[filters] = counted_tests(
                    config, batch.costs, batch.input_chars, batch.output_chars
                )
            limit_key = (config.time_limit_s, config.limit_percentile)
            if limit_key not in limits_cache:
                limits_cache[limit_key] = program_time_limits(config, batch.costs)
            counted, limits = counted_cache[filters], limits_cache[limit_key]
            values, negative_rate, wrong_paid = _config_rewards(
                config, level, counted, limits, group_size, present
            )
            result.by_noise.append(
                _metrics(
                    level.cv,
                    values[ranked],
                    quality_ranks,
                    bins,
                    bin_counts,
                    present,
                    values,
                    negative_rate,
                    wrong_paid,
                    concordance(values, pairs),
                )
            )
            done += 1
            if on_progress is not None:
                on_progress(done, total)
    for result in results:
        result.flags = _flags(result.by_noise[0])
        result.warnings = _warnings(result.by_noise, group_size)
    return results


def _config_rewards(
    config: RewardConfig,
    level: _Level,
    counted: np.ndarray,
    limits: np.ndarray,
    group_size: int,
    present: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, float]:
    """(N, R) rewards (the mean over a correctness and a speed step for alternating), (N,)
    all-negative rates and the wrong paid share (module notes, 6)."""
    over = level.measured > limits[:, None, :]  # (N, R, T); inf is over any limit
    timed_out = over | np.isinf(level.measured)
    per_test = level.percentiles(config.ties)
    failed_runs = failed(level.measured, counted[:, None, :])  # (N, R): the engine's rule
    percentile = mean_over_counted(np.where(over, 100.0, per_test), counted)
    percentile = np.where(failed_runs, np.nan, percentile)
    within_limits = ~failed_runs & ~np.any(timed_out & counted[:, None, :], axis=2)
    correct = present & ~failed_runs
    steps = (0, 1) if config.combination == "alternating" else (0,)
    by_step = [combine(config, correct, within_limits, percentile, step) for step in steps]
    rates = [_all_negative_rates(v, present, group_size) for v in by_step]
    wrong_paid = _wrong_paid_share(config, correct, within_limits, percentile, steps)
    return sum(by_step) / len(steps), sum(rates) / len(steps), wrong_paid


def _wrong_paid_share(
    config: RewardConfig,
    ran: np.ndarray,
    within_limits: np.ndarray,
    percentile: np.ndarray,
    steps: tuple[int, ...],
) -> float:
    """Share of the programs that `ran` (N, R) which, taken as wrong answers at their
    measured speed, earn more than the same wrong answer timed out (percentile 100) on
    some step."""
    if not ran.any():
        return 0.0
    wrong = np.zeros_like(ran)
    slowest = np.full_like(percentile, 100.0)
    paid = np.zeros_like(ran)
    for step in steps:
        at_speed = combine(config, wrong, within_limits, percentile, step)
        paid |= at_speed > combine(config, wrong, wrong, slowest, step)
    return float(paid[ran].mean())


def better_pairs(quality: np.ndarray, ranked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of `ranked` programs (having a quality) of the same problem, the first of
    higher quality than the second, as two arrays of flat indices into (N, R) arrays, so
    that every configuration's concordance is two gathers. quality, ranked: (N, R)."""
    with np.errstate(invalid="ignore"):
        higher = quality[:, :, None] > quality[:, None, :]  # (N, R, R)
    problem, better, worse = np.nonzero(higher & ranked[:, :, None] & ranked[:, None, :])
    width = quality.shape[1]
    return problem * width + better, problem * width + worse


def concordance(values: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]) -> float | None:
    """Goodman and Kruskal's gamma (module notes, 5) of rewards `values` (N, R) over the
    `pairs` (better_pairs); None when no pair gets different rewards."""
    flat = values.ravel()
    difference = flat[pairs[0]] - flat[pairs[1]]
    concordant = int(np.count_nonzero(difference > 0))
    discordant = int(np.count_nonzero(difference < 0))
    if concordant + discordant == 0:
        return None
    return (concordant - discordant) / (concordant + discordant)


def _metrics(
    cv: float,
    reward_flat: np.ndarray,
    quality_ranks: np.ndarray,
    bins: np.ndarray,
    bin_counts: np.ndarray,
    present: np.ndarray,
    values: np.ndarray,
    negative_rate: np.ndarray,
    wrong_paid_share: float,
    gamma: float | None,
) -> NoiseResult:
    reward_ranks = rankdata(reward_flat)
    if np.ptp(reward_ranks) == 0 or np.ptp(quality_ranks) == 0:
        rho = None  # a constant has no rank correlation
    else:
        rho = float(np.corrcoef(quality_ranks, reward_ranks)[0, 1])
    high = np.where(present, values, -np.inf).max(axis=1)
    low = np.where(present, values, np.inf).min(axis=1)
    problems = present.any(axis=1)
    sums = np.bincount(bins, weights=reward_flat, minlength=DECILES)
    curve = [float(sums[b] / bin_counts[b]) if bin_counts[b] else None for b in range(DECILES)]
    return NoiseResult(
        noise_cv=cv,
        monotonicity=rho,
        signal_density=float(np.mean((high > low)[problems])),
        all_negative_rate=float(np.mean(negative_rate[problems])),
        curve=curve,
        wrong_paid_share=wrong_paid_share,
        concordance=gamma,
    )


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


def _warnings(by_noise: list[NoiseResult], group_size: int) -> list[str]:
    warnings = []
    worst = max(by_noise, key=lambda n: n.all_negative_rate)
    if worst.all_negative_rate > WARN_ALL_NEGATIVE:
        warnings.append(
            f"{worst.all_negative_rate:.0%} of groups of {group_size} all negative "
            f"at noise CV {worst.noise_cv:g}"
        )
    base = by_noise[0].monotonicity
    for level in by_noise[1:]:
        if base is not None and (level.monotonicity or 0.0) < base - WARN_MONOTONICITY_DROP:
            warnings.append(
                f"monotonicity falls from {base:.2f} to "
                f"{'n/a' if level.monotonicity is None else f'{level.monotonicity:.2f}'} "
                f"at noise CV {level.noise_cv:g}"
            )
            break
    return warnings
