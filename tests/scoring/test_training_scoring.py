"""Scoring generated programs in the sandbox against stored human references: verdicts,
format failures, timeouts, and rewards through a reward configuration."""

from __future__ import annotations

import math

import pytest

from execution.samples import FAST, SLOW
from rewards.engine import RewardConfig
from scoring.scorer import FORMAT, ScoringProblem, score_group
from training.smoke import sum_scoring_problem

WRONG = FAST.replace("sum(nums)", "sum(nums) + 1")


@pytest.fixture(scope="module")
def sum_problem(tmp_path_factory) -> ScoringProblem:
    # human references fast, middle, slow, measured now on this machine
    return sum_scoring_problem(tmp_path_factory.mktemp("sum"))


def test_a_group_is_checked_timed_and_rewarded(sum_problem):
    config = RewardConfig("binary-top50", speed_bar=50)
    scores = score_group([FAST, SLOW, WRONG, None], sum_problem, config)
    fast, slow, wrong, missing = scores
    assert (fast.verdict, fast.correct, fast.reward) == ("OK", True, 1.0)
    assert fast.speed_percentile < 50 and fast.costs[0] > 0
    assert (slow.verdict, slow.correct, slow.reward) == ("OK", True, -1.0)
    assert slow.speed_percentile > 50  # ties the slow reference, slower than the others
    assert (wrong.verdict, wrong.correct, wrong.reward) == ("WRONG_ANSWER", False, -1.0)
    assert wrong.costs == [None] and wrong.speed_percentile is None  # not timed
    assert (missing.verdict, missing.reward) == (FORMAT, -1.0)


def test_a_program_over_the_cap_is_timed_out_and_graded_rewards_order_the_group(sum_problem):
    capped = ScoringProblem(
        "sum",
        sum_problem.runtimes,
        sum_problem.correctness,
        sum_problem.optimization,
        cap_s=float(sum_problem.runtimes.reference_costs[1, 0]),  # the middle reference's time
    )
    graded = RewardConfig("graded", speed_bar=50, combination="graded", slow_correct_reward=-0.5)
    fast, slow, wrong = score_group([FAST, SLOW, WRONG], capped, graded)
    assert slow.verdict == "OK" and slow.costs == [math.inf]  # correct, but over the cap
    assert slow.speed_percentile == 100.0
    assert [fast.reward, slow.reward, wrong.reward] == [1.0, -0.5, -1.0]
