"""Our statistics against reference computations, on many random inputs: pass@k against
exact enumeration, the bootstrap interval against scipy.stats.bootstrap on the same
resamples, the simulator's monotonicity against scipy.stats.spearmanr (with ties), and the
repeat statistics against scipy's Student-t interval and coefficient of variation."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from evaluations import metrics
from execution.noise import repeat_stats
from rewards import simulator


def _enumerated_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """The share of the k-subsets of n samples (c of them passing) that hold a pass."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    return Fraction(sum(any(s) for s in subsets), len(subsets))


def _sequential_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """1 - P(k draws without replacement all miss), as an exact product of fractions."""
    miss = Fraction(1)
    for i in range(k):
        miss *= Fraction(n - c - i, n - i)
    return 1 - miss


def test_pass_at_k_is_the_share_of_k_subsets_holding_a_pass():
    rng = random.Random(0)
    for _ in range(400):
        n = rng.randint(1, 12)
        c, k = rng.randint(0, n), rng.randint(1, n)
        assert metrics.pass_at_k(n, c, k) == pytest.approx(
            float(_enumerated_pass_at_k(n, c, k)), abs=1e-15
        ), (n, c, k)


def test_pass_at_k_is_exact_for_large_sample_counts():
    rng = random.Random(1)
    for _ in range(400):
        n = rng.randint(1, 400)
        c, k = rng.randint(0, n), rng.randint(1, n)
        exact = _sequential_pass_at_k(n, c, k)
        assert exact == 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        assert metrics.pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-14, abs=1e-15)


@pytest.mark.parametrize("statistic", [np.mean, np.median])
def test_the_bootstrap_interval_is_scipys_percentile_bootstrap_on_the_same_resamples(
    statistic,
):
    """scipy draws its resamples as rng.integers(0, n, (n_resamples, n)) in one batch and
    reads the interval off with linear quantiles, as we do: the same seed, the same
    interval."""
    rng = np.random.default_rng(2)
    for seed in range(60):
        size = int(rng.integers(2, 120))
        values = rng.choice(
            [rng.random(size), (rng.random(size) < 0.3).astype(float), rng.integers(0, 5, size) / 4]
        )
        ours = metrics.bootstrap_interval(values, statistic, seed=seed)
        theirs = stats.bootstrap(
            (values,),
            statistic,
            n_resamples=metrics.BOOTSTRAP_ROUNDS,
            confidence_level=metrics.CONFIDENCE,
            method="percentile",
            vectorized=True,
            rng=np.random.default_rng(seed),
        ).confidence_interval
        assert ours == pytest.approx((theirs.low, theirs.high), abs=1e-12), (seed, size)


def test_the_simulators_monotonicity_is_scipys_spearman_rho_with_ties():
    rng = np.random.default_rng(3)
    compared = 0
    for _ in range(300):
        size = int(rng.integers(3, 80))
        quality = np.round(rng.random(size), int(rng.integers(0, 3)))  # ties: 0-2 decimals
        reward = rng.choice(
            [rng.choice([-1.0, 1.0], size), rng.choice([-1.0, -0.5, 1.0], size), rng.random(size)]
        )
        bins = np.minimum((quality * simulator.DECILES).astype(int), simulator.DECILES - 1)
        got = simulator._metrics(
            0.0,
            reward,
            stats.rankdata(quality),  # as simulate() ranks the qualities
            bins,
            np.bincount(bins, minlength=simulator.DECILES),
            np.ones((1, size), dtype=bool),
            reward[None, :],
            np.zeros(1),
            0.0,
            None,
        ).monotonicity
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = stats.spearmanr(quality, reward).statistic
        if math.isnan(expected):  # a constant side: no rank correlation
            assert got is None
        else:
            compared += 1
            assert got == pytest.approx(expected, abs=1e-12)
    assert compared > 200


def test_the_repeat_interval_is_scipys_student_t_interval_for_every_repeat_count():
    rng = np.random.default_rng(4)
    for count in [*range(2, 64), 100, 500]:
        samples = list(rng.lognormal(-1.0, 0.1, count))
        got = repeat_stats(samples)
        low, high = stats.t.interval(
            0.95, count - 1, loc=np.mean(samples), scale=stats.sem(samples)
        )
        assert (got.ci_low, got.ci_high) == pytest.approx((low, high), rel=1e-12), count
        assert got.cv == pytest.approx(stats.variation(samples, ddof=1), rel=1e-12)
        assert got.median == pytest.approx(np.median(samples), rel=1e-15)
