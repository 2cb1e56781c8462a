"""The offline simulator recovers a known monotone relation, flags flat configurations, and
shows noise eroding the signal."""

from __future__ import annotations

import numpy as np
import pytest

from rewards.engine import ProblemRuntimes, RewardConfig
from rewards.simulator import all_negative_probability, qualities, simulate


def problems(count: int = 40, references: int = 10, tests: int = 3) -> list[ProblemRuntimes]:
    """References 1.5x apart in speed: reference i is the i-th fastest on every test."""
    rng = np.random.default_rng(5)
    made = []
    for _ in range(count):
        base = rng.uniform(0.01, 0.2, size=tests)
        costs = np.array([base * 1.5**i for i in range(references)])
        made.append(ProblemRuntimes(costs, np.full(tests, 100), np.full(tests, 10)))
    return made


def test_quality_is_one_minus_the_percentile_among_the_other_references():
    q = qualities(problems(1, references=5)[0])
    assert list(q) == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0])


def test_the_all_negative_probability_by_hand():
    assert all_negative_probability(np.array([-1.0, -1.0, 1.0, 1.0]), 2) == pytest.approx(0.25)
    assert all_negative_probability(np.array([-1.0, -0.5, 1.0, 1.0]), 2) == pytest.approx(0.125)
    assert all_negative_probability(np.array([1.0, 1.0]), 4) == 0.0


def test_a_monotone_reward_is_recovered_and_a_flat_one_is_flagged():
    binary = RewardConfig("binary-top50", speed_bar=50)
    flat = RewardConfig("everyone-fast", speed_bar=100)
    weighted = RewardConfig("weighted", combination="weighted")
    results = {r.name: r for r in simulate([binary, flat, weighted], problems(), noise_cvs=(0.0,))}
    noiseless = results["binary-top50"].by_noise[0]
    assert noiseless.monotonicity > 0.8 and noiseless.signal_density == 1.0
    # half the references are fast: 16 draws all negative with probability 0.5^16
    assert noiseless.all_negative_rate == pytest.approx(0.5**16)
    assert noiseless.curve[0] == -1 and noiseless.curve[-1] == 1
    assert not results["binary-top50"].flagged
    assert results["everyone-fast"].flags == ["flat"]
    assert results["everyone-fast"].by_noise[0].signal_density == 0.0
    assert results["weighted"].by_noise[0].monotonicity == pytest.approx(1.0)


def test_a_reward_that_moves_only_at_the_top_is_flagged():
    top_only = RewardConfig("top-5", speed_bar=5)
    result = simulate([top_only], problems(references=20), noise_cvs=(0.0,))[0]
    assert "extremes only" in result.flags


def test_noise_erodes_monotonicity():
    binary = RewardConfig("binary-top50", speed_bar=50)
    by_noise = simulate([binary], problems(), noise_cvs=(0.0, 0.5))[0].by_noise
    assert by_noise[1].monotonicity < by_noise[0].monotonicity
    assert [n.noise_cv for n in by_noise] == [0.0, 0.5]
