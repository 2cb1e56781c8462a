"""The reward engine on hand-built runtimes whose rewards are worked out by hand."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

from foundation.ranking import Measured, speed_percentile
from rewards.engine import (
    ProblemRuntimes,
    RewardConfig,
    counted_tests,
    program_time_limits,
    rewards,
    speed_percentiles,
)

INF = math.inf
# 3 references x 2 tests; the third timed out on test 1
PROBLEM = ProblemRuntimes(
    reference_costs=np.array([[1.0, 10.0], [2.0, 20.0], [4.0, INF]]),
    input_chars=np.array([100, 5000]),
    output_chars=np.array([10, 10]),
)
PROGRAMS = np.array(
    [
        [0.5, 5.0],  # p0: faster than every reference -> percentile 0
        [2.0, 15.0],  # p1: t0 (1 faster + tie)/3 = 50, t1 1/3 = 33.3 -> 41.67
        [3.0, 30.0],  # p2: 2/3 on both -> 66.67
        [0.1, 0.1],  # p3: fastest of all, but wrong
        [INF, 5.0],  # p4: timed out on t0 (100), fastest on t1 (0) -> 50
    ]
)
CORRECT = np.array([True, True, True, False, True])
ALL = np.array([True, True])


def _arrays(problem):
    return problem.reference_costs, problem.input_chars, problem.output_chars


def test_speed_percentiles_by_hand():
    got = speed_percentiles(PROGRAMS, PROBLEM.reference_costs, ALL)
    assert got == pytest.approx([0.0, 125 / 3, 200 / 3, 0.0, 50.0])


def test_speed_percentiles_agree_with_the_timing_services_ranking():
    rng = random.Random(3)
    references = np.array(
        [[rng.choice([rng.random(), INF, math.nan]) for _ in range(4)] for _ in range(7)]
    )
    programs = np.array([[rng.choice([rng.random(), INF]) for _ in range(4)] for _ in range(20)])
    tests = [f"t{i}" for i in range(4)]
    ours = speed_percentiles(programs, references, np.ones(4, dtype=bool))
    for row, mine in zip(programs, ours, strict=True):
        program = {t: Measured(float(c), True) for t, c in zip(tests, row, strict=True)}
        refs = [
            {
                t: Measured(float(c), True)
                for t, c in zip(tests, ref, strict=True)
                if not math.isnan(c)
            }
            for ref in references
        ]
        assert mine == pytest.approx(speed_percentile(program, refs, tests))


def test_collapsed_binary_gives_plus_one_only_to_correct_programs_within_the_bar():
    config = RewardConfig("binary-top50", speed_bar=50)
    assert list(rewards(config, PROBLEM, PROGRAMS, CORRECT)) == [1, 1, -1, -1, -1]


def test_a_wrong_but_fast_program_never_earns_speed_credit():
    for combination in ("binary", "graded", "weighted", "alternating"):
        config = RewardConfig("gated", speed_bar=100, combination=combination)
        wrong = rewards(config, PROBLEM, PROGRAMS, CORRECT, step=1)[3]
        right = rewards(config, PROBLEM, PROGRAMS, CORRECT, step=1)[0]
        assert wrong < right and wrong <= 0, combination


def test_graded_negatives_order_wrong_below_slow_below_fast():
    config = RewardConfig("graded", speed_bar=50, combination="graded", slow_correct_reward=0.0)
    assert list(rewards(config, PROBLEM, PROGRAMS, CORRECT)) == [1, 1, 0, -1, 0]


def test_weighted_sum_by_hand_and_without_gating():
    # exact ties: the percentiles worked out by hand above (the default ramp grades 1.33x)
    config = RewardConfig("weighted", combination="weighted", tie_band=0.0, tie_ramp=0.0)
    got = rewards(config, PROBLEM, PROGRAMS, CORRECT)
    assert got == pytest.approx([1.0, 0.5 + 0.5 * (1 - 125 / 300), 0.5 + 0.5 / 3, 0.0, 0.5])
    ungated = dataclasses.replace(config, gate_on_correctness=False)
    assert rewards(ungated, PROBLEM, PROGRAMS, CORRECT)[3] == pytest.approx(0.5)


def test_alternating_rewards_correctness_on_even_steps_and_speed_on_odd_ones():
    config = RewardConfig("alternating", speed_bar=50, combination="alternating")
    assert list(rewards(config, PROBLEM, PROGRAMS, CORRECT, step=0)) == [1, 1, 1, -1, 1]
    assert list(rewards(config, PROBLEM, PROGRAMS, CORRECT, step=1)) == [1, 1, -1, -1, -1]


@pytest.mark.parametrize(
    "filters, kept",
    [
        ({"max_mean_reference_s": 5.0}, [True, False]),  # means 2.33 s and 15 s (inf left out)
        ({"max_input_chars": 1000}, [True, False]),
        ({"max_output_chars": 5}, [False, False]),
        ({"fastest_tests_fraction": 0.5}, [True, False]),
        ({}, [True, True]),
    ],
)
def test_pre_execution_filters(filters, kept):
    assert list(counted_tests(RewardConfig("f", **filters), *_arrays(PROBLEM))) == kept


def test_a_filter_changes_who_is_fast():
    config = RewardConfig("absolute", speed_bar=50, max_mean_reference_s=5.0)
    # on t0 alone p2 is at 66.7 (slow), p4 timed out there; p1 is at 50 (fast)
    assert list(rewards(config, PROBLEM, PROGRAMS, CORRECT)) == [1, 1, -1, -1, -1]


def test_in_execution_limits_absolute_and_at_a_human_percentile():
    absolute = RewardConfig("limit", time_limit_s=25, speed_bar=None)
    assert list(program_time_limits(absolute, PROBLEM.reference_costs)) == [25, 25]
    # p2 needs 30 s on t1 and p4 already timed out: both over
    assert list(rewards(absolute, PROBLEM, PROGRAMS, CORRECT)) == [1, 1, -1, -1, -1]
    median_human = RewardConfig("p50", limit_percentile=50, speed_bar=None)
    assert list(program_time_limits(median_human, PROBLEM.reference_costs)) == [
        2.0,
        15.0,
    ]  # timed-out human left out
    # p1 takes exactly the limit (allowed); p2 is over it on both tests
    assert list(rewards(median_human, PROBLEM, PROGRAMS, CORRECT)) == [1, 1, -1, -1, -1]


def test_a_test_no_reference_finished_does_not_count_and_no_test_left_means_not_fast():
    problem = dataclasses.replace(
        PROBLEM, reference_costs=np.array([[math.nan, 10.0], [math.nan, 20.0], [math.nan, INF]])
    )
    assert list(counted_tests(RewardConfig("x"), *_arrays(problem))) == [False, True]
    empty = dataclasses.replace(PROBLEM, reference_costs=np.full((3, 2), math.nan))
    assert list(rewards(RewardConfig("x", speed_bar=100), empty, PROGRAMS, CORRECT)) == [-1] * 5


def test_ties_count_half():
    got = speed_percentiles(np.array([[2.0, 20.0]]), PROBLEM.reference_costs, ALL)
    assert got == pytest.approx([(50.0 + 50.0) / 2])  # t0: 1 + 0.5 of 3; t1: 1 + 0.5 of 3


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"combination": "mean"}, "combination: 'mean' is not one of"),
        ({"speed_bar": 130}, "speed_bar: must be in [0, 100]"),
        ({"fastest_tests_fraction": 0}, "fastest_tests_fraction: must be > 0"),
    ],
)
def test_a_bad_config_is_named(fields, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        rewards(RewardConfig("bad", **fields), PROBLEM, PROGRAMS, CORRECT)
