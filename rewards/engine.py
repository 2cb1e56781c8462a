"""Reward engine: from measured runtimes to a training signal (paper, section 3). Plain
Python + numpy, no Django; vectorised over programs and tests.

Shapes: a problem has R human references and T tests; a batch has P programs.
Costs are CPU seconds; `inf` is a run stopped by a limit, `nan` a run that failed or is
missing (a reference that failed a test is not a reference there).

The design space, applied in this order:
1. pre-execution filters choose the tests that count: absolute time (mean reference time under
   a threshold), character length of input and output, relative time (the fastest share);
2. in-execution limits: an absolute per-test limit, or one at a percentile of the human
   times; a program over the limit on a counted test is treated as timed out (cost `inf`);
3. post-execution ranking: the speed percentile (share of correct references faster, ties
   half, as in `workers.execution.ranking`) averaged over the counted tests, against a bar τ;
4. a combination into one number per program (binary, graded, weighted, alternating), with
   correctness gating: a wrong program never earns speed credit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from rewards.typed import checked_values

COMBINATIONS = ("binary", "graded", "weighted", "alternating")


@dataclass
class RewardConfig:
    """One point of the reward design space; stored by name with training runs."""

    name: str
    max_mean_reference_s: float | None = None
    """Filter: count only tests whose mean reference time is under this (absolute time)."""
    max_input_chars: int | None = None
    """Filter: count only tests whose input has at most this many characters."""
    max_output_chars: int | None = None
    """Filter: ... and whose expected output has at most this many."""
    fastest_tests_fraction: float | None = None
    """Filter: count only this share of the tests, those with the lowest mean reference time."""
    time_limit_s: float | None = None
    """Limit: a program over this on a counted test is timed out."""
    limit_percentile: float | None = None
    """Limit: per test, the time of the human at this percentile (30: the 30th-fastest %)."""
    speed_bar: float | None = 30.0
    """τ: a program is fast when its mean speed percentile is at most this (top τ%). None:
    no ranking (fast = within the limits)."""
    combination: str = "binary"
    """binary: +1 correct and fast, else -1 (the paper's best); graded: wrong -1, slow-correct
    `slow_correct_reward`, fast-correct +1; weighted: correctness_weight·correct +
    speed_weight·(1 - percentile/100); alternating: correctness-only rewards on even steps,
    speed-only (binary) on odd ones."""
    slow_correct_reward: float = 0.0
    """graded: the reward of a correct program that misses the bar (between -1 and +1)."""
    correctness_weight: float = 0.5
    """weighted: the weight of correctness (0 or 1)."""
    speed_weight: float = 0.5
    """weighted: the weight of speed, 1 - percentile/100 (0 when over a limit)."""
    gate_on_correctness: bool = True
    """No speed credit for a wrong program (always on for binary and graded)."""

    @classmethod
    def from_dict(cls, data: dict) -> RewardConfig:
        """A checked config from plain data (a file, a form, a stored row); a bad value
        raises ValueError naming its field."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError("name: a non-empty text is required")
        values = checked_values(data, _FIELD_KINDS, _OPTIONAL)
        config = cls(**values)
        config.check()
        return config

    def as_dict(self) -> dict:
        return asdict(self)

    def check(self) -> None:
        if self.combination not in COMBINATIONS:
            raise ValueError(f"combination: {self.combination!r} is not one of {COMBINATIONS}")
        for field in ("fastest_tests_fraction",):
            value = getattr(self, field)
            if value is not None and not 0 < value <= 1:
                raise ValueError(f"{field}: must be in (0, 1]")
        for field in ("limit_percentile", "speed_bar"):
            value = getattr(self, field)
            if value is not None and not 0 <= value <= 100:
                raise ValueError(f"{field}: must be in [0, 100]")
        for field in ("max_mean_reference_s", "time_limit_s"):
            value = getattr(self, field)
            if value is not None and not value > 0:
                raise ValueError(f"{field}: must be > 0 seconds")
        for field in ("max_input_chars", "max_output_chars"):
            value = getattr(self, field)
            if value is not None and value < 0:
                raise ValueError(f"{field}: must be >= 0")


_FIELD_KINDS = {
    "name": str,
    "max_mean_reference_s": float,
    "max_input_chars": int,
    "max_output_chars": int,
    "fastest_tests_fraction": float,
    "time_limit_s": float,
    "limit_percentile": float,
    "speed_bar": float,
    "combination": str,
    "slow_correct_reward": float,
    "correctness_weight": float,
    "speed_weight": float,
    "gate_on_correctness": bool,
}
_OPTIONAL = frozenset(
    {
        "max_mean_reference_s",
        "max_input_chars",
        "max_output_chars",
        "fastest_tests_fraction",
        "time_limit_s",
        "limit_percentile",
        "speed_bar",
    }
)


@dataclass
class ProblemRuntimes:
    reference_costs: np.ndarray  # (R, T) seconds; inf timed out; nan failed or missing
    input_chars: np.ndarray  # (T,)
    output_chars: np.ndarray  # (T,)


# Every function below takes arrays with any leading batch shape (...): one problem, or N
# problems padded with nan (a missing reference or test is all nan), so that the simulator
# and a trainer share one implementation.


def mean_reference_time(reference_costs: np.ndarray) -> np.ndarray:
    """(..., T) mean over the references that finished (timed-out and failed ones left out);
    nan where none did. reference_costs: (..., R, T)."""
    finished = np.isfinite(reference_costs)
    counts = finished.sum(axis=-2)
    sums = np.where(finished, reference_costs, 0.0).sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / counts, np.nan)


def counted_tests(
    config: RewardConfig,
    reference_costs: np.ndarray,
    input_chars: np.ndarray,
    output_chars: np.ndarray,
) -> np.ndarray:
    """(..., T) bool: the tests the pre-execution filters keep. reference_costs (..., R, T),
    input_chars and output_chars (..., T)."""
    mean = mean_reference_time(reference_costs)
    keep = ~np.isnan(mean)  # a test no reference finished cannot rank anything
    if config.max_mean_reference_s is not None:
        keep &= np.nan_to_num(mean, nan=np.inf) < config.max_mean_reference_s
    if config.max_input_chars is not None:
        keep &= input_chars <= config.max_input_chars
    if config.max_output_chars is not None:
        keep &= output_chars <= config.max_output_chars
    if config.fastest_tests_fraction is not None:
        # among the tests still kept, the fastest floor(fraction * count) (at least one)
        candidates = keep.sum(axis=-1, keepdims=True)
        allowed = np.maximum(1, np.floor(config.fastest_tests_fraction * candidates))
        order = np.argsort(np.where(keep, mean, np.inf), axis=-1, kind="stable")
        position = np.empty_like(order)
        np.put_along_axis(position, order, np.arange(order.shape[-1]), axis=-1)
        keep &= position < allowed
    return keep


def reference_percentile_time(reference_costs: np.ndarray, percentile: float) -> np.ndarray:
    """(..., T) the finished references' time at `percentile` (linear interpolation, as
    numpy's default); nan where none finished. reference_costs: (..., R, T)."""
    finished = np.isfinite(reference_costs)
    ordered = np.sort(np.where(finished, reference_costs, np.inf), axis=-2)  # finished first
    counts = finished.sum(axis=-2)  # (..., T)
    position = percentile / 100.0 * np.maximum(counts - 1, 0)
    below = np.floor(position).astype(int)[..., None, :]
    above = np.minimum(below + 1, np.maximum(counts - 1, 0)[..., None, :])
    low = np.take_along_axis(ordered, below, axis=-2)[..., 0, :]
    high = np.take_along_axis(ordered, above, axis=-2)[..., 0, :]
    fraction = position - np.floor(position)
    with np.errstate(invalid="ignore"):
        value = low + fraction * (high - low)
    return np.where(counts > 0, np.where(fraction == 0, low, value), np.nan)


def program_time_limits(config: RewardConfig, reference_costs: np.ndarray) -> np.ndarray:
    """(..., T) seconds a program may take on each test (inf: no limit)."""
    limits = np.full(reference_costs.shape[:-2] + reference_costs.shape[-1:], np.inf)
    if config.time_limit_s is not None:
        limits = np.minimum(limits, config.time_limit_s)
    if config.limit_percentile is not None:
        at = reference_percentile_time(reference_costs, config.limit_percentile)
        limits = np.minimum(limits, np.where(np.isnan(at), np.inf, at))
    return limits


def per_test_percentiles(program_costs: np.ndarray, reference_costs: np.ndarray) -> np.ndarray:
    """(..., P, T) share of valid references faster than each program on each test, ties
    half, x 100; a timed-out program scores 100; nan where the test has no valid reference
    (same definitions as workers.execution.ranking.percentile_on_test).
    program_costs (..., P, T), reference_costs (..., R, T)."""
    programs = program_costs[..., :, None, :]  # (..., P, 1, T)
    references = reference_costs[..., None, :, :]  # (..., 1, R, T)
    valid = ~np.isnan(references)
    faster = np.sum(valid & (references < programs), axis=-2)  # (..., P, T)
    ties = np.sum(valid & (references == programs), axis=-2)
    n_valid = np.sum(valid, axis=-2)  # (..., 1, T)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_test = np.where(n_valid > 0, 100.0 * (faster + 0.5 * ties) / n_valid, np.nan)
    return np.where(np.isinf(program_costs) & (n_valid > 0), 100.0, per_test)


def mean_over_counted(per_test: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """(..., P) mean of per_test (..., P, T) over the counted (..., T) tests that have a
    value; nan when none has."""
    use = counted[..., None, :] & ~np.isnan(per_test)
    totals = np.where(use, per_test, 0.0).sum(axis=-1)
    counts = use.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, totals / counts, np.nan)


def speed_percentiles(
    program_costs: np.ndarray, reference_costs: np.ndarray, counted: np.ndarray
) -> np.ndarray:
    """(..., P) mean speed percentile over the counted tests (see per_test_percentiles)."""
    return mean_over_counted(per_test_percentiles(program_costs, reference_costs), counted)


def combine(
    config: RewardConfig,
    correct: np.ndarray,
    within_limits: np.ndarray,
    percentile: np.ndarray,
    step: int = 0,
) -> np.ndarray:
    """Rewards (same shape as the inputs) from correctness, limits and speed percentile."""
    if config.speed_bar is None:
        fast = within_limits
    else:
        # no counted test with a reference: nothing to rank against, so not fast
        fast = within_limits & (np.nan_to_num(percentile, nan=np.inf) <= config.speed_bar)
    if config.combination == "binary":
        return np.where(correct & fast, 1.0, -1.0)
    if config.combination == "graded":
        return np.where(correct, np.where(fast, 1.0, config.slow_correct_reward), -1.0)
    if config.combination == "weighted":
        speed = 1.0 - np.nan_to_num(percentile, nan=100.0) / 100.0
        speed = np.where(within_limits, speed, 0.0)
        if config.gate_on_correctness:
            speed = np.where(correct, speed, 0.0)
        return config.correctness_weight * correct + config.speed_weight * speed
    # alternating: one objective per step
    if step % 2 == 0:
        return np.where(correct, 1.0, -1.0)
    return np.where((correct if config.gate_on_correctness else True) & fast, 1.0, -1.0)


def rewards(
    config: RewardConfig,
    problem: ProblemRuntimes,
    program_costs: np.ndarray,
    program_correct: np.ndarray,
    step: int = 0,
    *,
    ranking_costs: np.ndarray | None = None,
) -> np.ndarray:
    """(P,) rewards of P programs of one problem (costs (P, T), correctness (P,) on every
    test). The tests counted and the limits come from the problem's references; the speed
    percentile ranks against them too, or against `ranking_costs` (R', T) when given (the
    simulator ranks a reference among the others)."""
    config.check()
    references = problem.reference_costs
    counted = counted_tests(config, references, problem.input_chars, problem.output_chars)
    limits = program_time_limits(config, references)
    costs = np.where(program_costs > limits[None, :], np.inf, program_costs)
    within_limits = ~np.any(np.isinf(costs) & counted[None, :], axis=1)
    correct = program_correct.astype(bool) & ~np.any(np.isnan(costs[:, counted]), axis=1)
    ranked_among = references if ranking_costs is None else ranking_costs
    percentile = speed_percentiles(costs, ranked_among, counted)
    return combine(config, correct, within_limits, percentile, step)
