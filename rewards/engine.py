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
   half, as in `foundation.ranking`) averaged over the counted tests, against a bar τ;
   a program that failed a counted test (cost nan) has none (nan) and is never fast
   (`foundation.ranking.failed`), gated or not;
4. a combination into one number per program (binary, graded, weighted, alternating), with
   correctness gating: a wrong program never earns speed credit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from foundation.ranking import (
    DEFAULT_TIE_BAND,
    DEFAULT_TIE_RAMP,
    EXACT,
    Ties,
    failed,
    faster_share,
)
from foundation.typed import bounded, load_config, within_bounds

COMBINATIONS = ("binary", "graded", "weighted", "alternating")
REFERENCE_TIMINGS = ("interleaved", "stored")
MAX_TIMING_REPEATS = 20


@dataclass
class RewardConfig:
    """One point of the reward design space; stored by name with training runs."""

    name: str
    """How runs, simulations and pages refer to the configuration (unique when stored)."""
    max_mean_reference_s: float | None = bounded(None, 0, 3600)
    """Filter: count only tests whose mean reference time is under this (absolute time)."""
    max_input_chars: int | None = bounded(None, 0, 10**12)
    """Filter: count only tests whose input has at most this many characters."""
    max_output_chars: int | None = bounded(None, 0, 10**12)
    """Filter: ... and whose expected output has at most this many."""
    fastest_tests_fraction: float | None = bounded(None, 0, 1)
    """Filter: count only this share of the tests, those with the lowest mean reference time."""
    time_limit_s: float | None = bounded(None, 0, 3600)
    """Limit: a program over this on a counted test is timed out."""
    limit_percentile: float | None = bounded(None, 0, 100)
    """Limit: per test, the time of the human at this percentile (30: the 30th-fastest %)."""
    speed_bar: float | None = bounded(30.0, 0, 100)
    """τ: a program is fast when its mean speed percentile is at most this (top τ%). None:
    no ranking (fast = within the limits)."""
    combination: str = "binary"
    """binary: +1 correct and fast, else -1 (the paper's best); graded: wrong -1, slow-correct
    `slow_correct_reward`, fast-correct +1; weighted: correctness_weight·correct +
    speed_weight·(1 - percentile/100); alternating: correctness-only rewards on even steps,
    speed-only (binary) on odd ones."""
    slow_correct_reward: float = bounded(0.0, -1, 1)
    """graded: the reward of a correct program that misses the bar (between -1 and +1)."""
    correctness_weight: float = bounded(0.5, 0, 1)
    """weighted: the weight of correctness (0 or 1)."""
    speed_weight: float = bounded(0.5, 0, 1)
    """weighted: the weight of speed, 1 - percentile/100 (0 when over a limit)."""
    gate_on_correctness: bool = True
    """No speed credit for a wrong program (always on for binary and graded)."""
    tie_band: float = bounded(DEFAULT_TIE_BAND, 0, 0.99)
    """Ranking: a program and a reference whose costs differ by at most this share of the
    smaller one are a tie, 1/2 each (foundation.ranking.Ties; DEFAULT_TIE_BAND says
    why 0.08)."""
    noise_band_factor: float = bounded(0.0, 0, 20)
    """Ranking: the scorer widens tie_band to this many times the noise it measured (the
    median gap between the two lowest runs of everything a job measured); 0: the band stays
    as set. Off by default: a band that moves between scorings moves every graded rank with
    it (3, the old default, gave rank jitter p95 4.9 under load, docs/benchmarks.md)."""
    tie_ramp: float = bounded(DEFAULT_TIE_RAMP, 0, 4)
    """Ranking: beyond the tie band a comparison is graded over this further share of the
    smaller cost, linearly in log(cost ratio), so a ratio crossing the band's edge moves a
    rank by a fraction of a comparison (DEFAULT_TIE_RAMP says why 0.30); 0: decided at the
    edge."""
    reference_timing: str = "interleaved"
    """interleaved: the problem's correct references are re-measured in the same job as the
    programs, round by round, and ranked from those times (the machine's state and drift
    cancel); stored: ranked against the runtimes stored at build time (cheaper)."""
    timing_repeats: int = bounded(5, 1, MAX_TIMING_REPEATS)
    """Runs of each program (and reference) per optimization test; the lowest counts. A
    test's rounds stop early (after 3) once every program's two lowest runs agree within
    `timing_settle`."""
    timing_settle: float = bounded(0.02, 0, 0.99)
    """Rounds stop once every program's two lowest runs on the test agree within this share
    (pinned, the lowest of 5 runs repeated within 1-3% on this project's shared host); 0:
    always `timing_repeats` rounds."""

    @classmethod
    def from_dict(cls, data: dict) -> RewardConfig:
        """A checked config from plain data (a file, a form, a stored row); a bad value
        raises ValueError naming its field."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError("name: a non-empty text is required")
        return load_config(cls, data)

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def ties(self) -> Ties:
        """The ranking's tie rule: tie_band, graded over tie_ramp beyond it."""
        return Ties(self.tie_band, self.tie_ramp)

    def check(self) -> None:
        """The rules the fields' bounds cannot say (choices, open intervals)."""
        within_bounds(self)
        if self.combination not in COMBINATIONS:
            raise ValueError(f"combination: {self.combination!r} is not one of {COMBINATIONS}")
        if self.reference_timing not in REFERENCE_TIMINGS:
            raise ValueError(
                f"reference_timing: {self.reference_timing!r} is not one of {REFERENCE_TIMINGS}"
            )
        for field in ("fastest_tests_fraction", "max_mean_reference_s", "time_limit_s"):
            if getattr(self, field) == 0:
                raise ValueError(f"{field}: must be > 0 (or empty: no filter)")


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


def per_test_percentiles(
    program_costs: np.ndarray, reference_costs: np.ndarray, ties: Ties = EXACT
) -> np.ndarray:
    """(..., P, T) share of valid references faster than each program on each test, near
    costs tied or graded by `ties` (see `faster_share`), x 100; a timed-out program scores
    100; nan where the test has no valid reference (same definitions as
    foundation.ranking.percentile_on_test).
    program_costs (..., P, T), reference_costs (..., R, T)."""
    programs = program_costs[..., :, None, :]  # (..., P, 1, T)
    references = reference_costs[..., None, :, :]  # (..., 1, R, T)
    valid = ~np.isnan(references)
    return shares_faster(programs, references, valid, program_costs, ties, axis=-2)


def shares_faster(programs, others, valid, program_costs, ties: Ties, axis: int):
    """Per-test percentile: the `valid` `others` (broadcast against `programs`) counted as
    faster by `faster_share`, summed over `axis`, x 100 / their number; a timed-out program
    (`program_costs`, the result's shape) scores 100; nan without a valid other. The
    engine's and the simulator's one ranking."""
    shares = np.where(valid, faster_share(others, programs, ties), 0.0)
    faster = np.sum(shares, axis=axis)
    n_valid = np.sum(valid, axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_test = np.where(n_valid > 0, 100.0 * faster / n_valid, np.nan)
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
    program_costs: np.ndarray,
    reference_costs: np.ndarray,
    counted: np.ndarray,
    ties: Ties = EXACT,
) -> np.ndarray:
    """(..., P) mean speed percentile over the counted tests (see per_test_percentiles); nan
    for a program that failed a counted test (`failed`)."""
    percentile = mean_over_counted(
        per_test_percentiles(program_costs, reference_costs, ties), counted
    )
    return np.where(failed(program_costs, counted[..., None, :]), np.nan, percentile)


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
    ties: Ties | None = None,
) -> np.ndarray:
    """(P,) rewards of P programs of one problem (costs (P, T), correctness (P,) on every
    test). The tests counted and the limits come from the problem's references; the speed
    percentile ranks against them too, or against `ranking_costs` (R', T) when given (the
    simulator ranks a reference among the others, the scorer among references re-measured
    with the programs). `ties` overrides the config's (its band widened to the noise the
    scorer measured)."""
    config.check()
    references = problem.reference_costs
    counted = counted_tests(config, references, problem.input_chars, problem.output_chars)
    limits = program_time_limits(config, references)
    costs = np.where(program_costs > limits[None, :], np.inf, program_costs)
    failed_runs = failed(costs, counted)  # (P,): no percentile, never fast, never correct
    within_limits = ~failed_runs & ~np.any(np.isinf(costs) & counted[None, :], axis=1)
    correct = program_correct.astype(bool) & ~failed_runs
    ranked_among = references if ranking_costs is None else ranking_costs
    percentile = speed_percentiles(
        costs, ranked_among, counted, config.ties if ties is None else ties
    )
    return combine(config, correct, within_limits, percentile, step)
