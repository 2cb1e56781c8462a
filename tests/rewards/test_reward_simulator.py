"""The offline simulator recovers a known monotone relation, flags flat configurations, and
shows noise eroding the signal."""

from __future__ import annotations

import numpy as np
import pytest

from rewards.engine import ProblemRuntimes, RewardConfig, rewards
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


def messy_problems(count: int = 12) -> list[ProblemRuntimes]:
    """Different reference and test counts, timeouts, failures and long inputs."""
    rng = np.random.default_rng(11)
    made = []
    for index in range(count):
        refs, tests = 3 + index % 5, 1 + index % 4
        costs = rng.uniform(0.01, 0.5, size=(refs, tests))
        costs[rng.random(costs.shape) < 0.1] = np.inf
        costs[rng.random(costs.shape) < 0.05] = np.nan
        made.append(ProblemRuntimes(costs, rng.integers(10, 10_000, tests), np.full(tests, 5)))
    return made


CONFIGS = [
    RewardConfig("top30", speed_bar=30),
    RewardConfig("graded", combination="graded", slow_correct_reward=-0.5),
    RewardConfig("weighted", combination="weighted"),
    RewardConfig("p40-limit", limit_percentile=40, speed_bar=None),
    RewardConfig("filtered", fastest_tests_fraction=0.5, max_input_chars=5000, speed_bar=50),
    RewardConfig("absolute", max_mean_reference_s=0.2, time_limit_s=0.3, speed_bar=60),
    # ungated: a failed reference must still never rank fastest (the engine's `failed` rule)
    RewardConfig("ungated-weighted", combination="weighted", gate_on_correctness=False),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name)
def test_the_batch_gives_each_reference_the_engines_reward_against_the_others(config):
    """Noiseless, reference i's reward in the simulator is engine.rewards() for a program
    with its runtimes, ranked among the other references, with the tests and limits of the
    whole reference set (as deployed): the vectorised, padded path and the one-problem path
    agree, seen through signal density and the all-negative rate."""
    problems = messy_problems()
    varying, negative = 0, []
    for problem in problems:
        costs = problem.reference_costs
        values = []
        for i in range(len(costs)):
            others = np.delete(costs, i, axis=0)
            correct = np.array([True])  # a missing run on a counted test: the engine's call
            values.append(
                rewards(config, problem, costs[i : i + 1], correct, ranking_costs=others)[0]
            )
        values = np.array(values)
        varying += int(np.ptp(values) > 0)
        negative.append(all_negative_probability(values, 4))
    level = simulate([config], problems, noise_cvs=(0.0,), group_size=4)[0].by_noise[0]
    assert level.signal_density == pytest.approx(varying / len(problems))
    assert level.all_negative_rate == pytest.approx(np.mean(negative))


def test_ranking_against_the_models_own_outputs_collapses_the_signal():
    binary = RewardConfig("binary-top50", speed_bar=50)
    own = simulate([binary], problems(), noise_cvs=(0.0, 0.2), rank_against="own_outputs")[0]
    # noiseless: every program ties its own re-measurements (percentile 50): constant reward
    assert own.by_noise[0].signal_density == 0.0 and own.flags == ["flat"]
    # noisy: the rank is a coin toss, whatever the quality
    assert abs(own.by_noise[1].monotonicity) < 0.2
    human = simulate([binary], problems(), noise_cvs=(0.2,))[0].by_noise[0]
    assert human.monotonicity > 0.6


def test_alternating_is_scored_on_the_mean_of_a_correctness_and_a_speed_step():
    alternating = RewardConfig("alt", speed_bar=50, combination="alternating")
    binary = RewardConfig("binary", speed_bar=50)
    alt, plain = simulate([alternating, binary], problems(), noise_cvs=(0.0,))
    # correctness steps give every (correct) reference +1: mean (1 + speed reward) / 2
    assert alt.by_noise[0].curve[-1] == 1.0 and alt.by_noise[0].curve[0] == 0.0
    assert alt.by_noise[0].all_negative_rate == pytest.approx(
        plain.by_noise[0].all_negative_rate / 2
    )


def test_a_strict_bar_warns_of_all_negative_groups_and_noise_loss_is_reported():
    strict = RewardConfig("top5", speed_bar=5)
    result = simulate([strict], problems(), noise_cvs=(0.0,), group_size=2)[0]
    assert result.warnings == ["81% of groups of 2 all negative at noise CV 0"]
    fragile = RewardConfig("top50", speed_bar=50, tie_band=0.0, tie_ramp=0.0)  # no ties
    close = [
        ProblemRuntimes(p.reference_costs**0.02, p.input_chars, p.output_chars) for p in problems()
    ]  # references almost equally fast: a little noise reorders them
    result = simulate([fragile], close, noise_cvs=(0.0, 0.3))[0]
    assert any(w.startswith("monotonicity falls from") for w in result.warnings)


def test_bad_simulator_arguments_are_named():
    with pytest.raises(ValueError, match="group_size"):
        simulate([RewardConfig("x")], problems(), group_size=0)
    with pytest.raises(ValueError, match="noise_cvs"):
        simulate([RewardConfig("x")], problems(), noise_cvs=(-1.0,))
    with pytest.raises(ValueError, match="rank_against"):
        simulate([RewardConfig("x")], problems(), rank_against="self")
    with pytest.raises(ValueError, match="problems: none"):
        simulate([RewardConfig("x")], [])


def test_a_reference_that_failed_a_test_has_no_quality_but_still_draws_rewards():
    """A failed run has no time: it is not the fastest (quality 1) on that test, it has no
    quality at all (the engine's `failed` rule); its rewards still count in the groups."""
    costs = np.array([[0.1, 0.2], [np.nan, 0.1], [0.3, 0.4]])
    problem = ProblemRuntimes(costs, np.array([10, 10]), np.array([5, 5]))
    quality = qualities(problem)
    assert np.isnan(quality[1]) and quality[0] > quality[2]
    config = RewardConfig("top50", speed_bar=50)
    level = simulate([config], [problem], noise_cvs=(0.0,), group_size=4)
    # reference 0 is the one fast reward among three: a group of 4 is all-negative
    # with (2/3)^4, the failed reference counted among the negatives
    assert level[0].by_noise[0].all_negative_rate == pytest.approx((2 / 3) ** 4)
