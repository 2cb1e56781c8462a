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

from dataclasses import dataclass

import numpy as np

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
    correctness_weight: float = 0.5
    speed_weight: float = 0.5
    gate_on_correctness: bool = True
    """No speed credit for a wrong program (always on for binary and graded)."""

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


@dataclass
class ProblemRuntimes:
    reference_costs: np.ndarray  # (R, T) seconds; inf timed out; nan failed or missing
    input_chars: np.ndarray  # (T,)
    output_chars: np.ndarray  # (T,)


def _mean_reference_time(problem: ProblemRuntimes) -> np.ndarray:
    """(T,) mean over the references that finished (timed-out and failed ones left out)."""
    costs = np.where(np.isfinite(problem.reference_costs), problem.reference_costs, np.nan)
    with np.errstate(invalid="ignore"):
        counts = np.sum(~np.isnan(costs), axis=0)
        sums = np.nansum(costs, axis=0)
    return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def counted_tests(config: RewardConfig, problem: ProblemRuntimes) -> np.ndarray:
    """(T,) bool: the tests the pre-execution filters keep."""
    mean = _mean_reference_time(problem)
    keep = ~np.isnan(mean)  # a test no reference finished cannot rank anything
    if config.max_mean_reference_s is not None:
        keep &= mean < config.max_mean_reference_s
    if config.max_input_chars is not None:
        keep &= problem.input_chars <= config.max_input_chars
    if config.max_output_chars is not None:
        keep &= problem.output_chars <= config.max_output_chars
    if config.fastest_tests_fraction is not None and keep.any():
        candidates = np.flatnonzero(keep)
        count = max(1, int(np.floor(config.fastest_tests_fraction * len(candidates))))
        fastest = candidates[np.argsort(mean[candidates], kind="stable")[:count]]
        keep = np.zeros_like(keep)
        keep[fastest] = True
    return keep


def program_time_limits(config: RewardConfig, problem: ProblemRuntimes) -> np.ndarray:
    """(T,) seconds a program may take on each test (inf: no limit)."""
    limits = np.full(problem.reference_costs.shape[1], np.inf)
    if config.time_limit_s is not None:
        limits = np.minimum(limits, config.time_limit_s)
    if config.limit_percentile is not None:
        costs = np.where(np.isnan(problem.reference_costs), np.nan, problem.reference_costs)
        with np.errstate(invalid="ignore"):
            at_percentile = np.nanpercentile(
                np.where(np.isinf(costs), np.nan, costs), config.limit_percentile, axis=0
            )
        limits = np.minimum(limits, np.where(np.isnan(at_percentile), np.inf, at_percentile))
    return limits


def speed_percentiles(
    program_costs: np.ndarray, reference_costs: np.ndarray, counted: np.ndarray
) -> np.ndarray:
    """(P,) mean over counted tests of the share of references faster (ties half) x 100;
    a timed-out program scores 100 on that test; nan when no counted test has a reference.
    Same definitions as workers.execution.ranking.percentile_on_test."""
    programs = program_costs[:, None, :]  # (P, 1, T)
    references = reference_costs[None, :, :]  # (1, R, T)
    valid = ~np.isnan(references)  # (1, R, T)
    faster = np.sum(valid & (references < programs), axis=1)  # (P, T)
    ties = np.sum(valid & (references == programs), axis=1)
    n_valid = np.sum(valid, axis=1)  # (1, T)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_test = 100.0 * (faster + 0.5 * ties) / n_valid
    per_test = np.where(np.isinf(program_costs), 100.0, per_test)
    use = counted[None, :] & (n_valid > 0)
    totals = np.sum(np.where(use, per_test, 0.0), axis=1)
    counts = np.sum(use, axis=1)
    return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)


def rewards(
    config: RewardConfig,
    problem: ProblemRuntimes,
    program_costs: np.ndarray,
    program_correct: np.ndarray,
    step: int = 0,
) -> np.ndarray:
    """(P,) rewards of P programs of one problem (costs (P, T), correctness (P,) on every
    test)."""
    config.check()
    counted = counted_tests(config, problem)
    limits = program_time_limits(config, problem)
    costs = np.where(program_costs > limits[None, :], np.inf, program_costs)
    within_limits = ~np.any(np.isinf(costs) & counted[None, :], axis=1)
    correct = program_correct.astype(bool) & ~np.any(np.isnan(costs[:, counted]), axis=1)
    percentile = speed_percentiles(costs, problem.reference_costs, counted)
    if config.speed_bar is None:
        fast = within_limits
    else:
        # no counted test with a reference: nothing to rank against, so not fast
        fast = (
            within_limits & ~np.isnan(percentile) & (np.nan_to_num(percentile) <= config.speed_bar)
        )
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
    return (
        np.where(correct & fast, 1.0, -1.0)
        if config.gate_on_correctness
        else np.where(fast, 1.0, -1.0)
    )
