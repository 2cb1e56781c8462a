"""A failed program (a wrong answer or a crash on a test it is ranked on: no time, cost nan)
has no speed percentile and never counts as fast, in the reward engine as in the timing
service's ranking: one rule (`foundation.ranking.failed`), whatever the correctness
gating. A timed-out run is not a failed one: it has a cost, slower than every reference."""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np
import pytest

from foundation.ranking import TIMED_OUT, Measured, speed_percentile
from rewards.engine import ProblemRuntimes, RewardConfig, rewards, speed_percentiles

NAN, INF = math.nan, math.inf
PROBLEM = ProblemRuntimes(
    reference_costs=np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 40.0]]),
    input_chars=np.array([10, 10]),
    output_chars=np.array([10, 10]),
)
COSTS = np.array(
    [
        [0.5, 5.0],  # correct, faster than every reference: percentile 0
        [NAN, NAN],  # crashed on both tests
        [0.5, NAN],  # fast on t0, wrong on t1
        [INF, 5.0],  # timed out on t0 (100), fastest on t1 (0): 50, not failed
    ]
)
CORRECT = np.array([True, False, False, True])


def test_a_program_that_failed_a_counted_test_has_no_speed_percentile():
    every = speed_percentiles(COSTS, PROBLEM.reference_costs, np.array([True, True]))
    assert np.isnan(every[1:3]).all() and every[[0, 3]].tolist() == [0.0, 50.0]
    # t1 not counted: the program wrong only there is ranked on t0
    first = speed_percentiles(COSTS, PROBLEM.reference_costs, np.array([True, False]))
    assert np.isnan(first[1]) and first[[0, 2, 3]].tolist() == [0.0, 0.0, 100.0]


@pytest.mark.parametrize(
    "fields, step, expected",
    [
        # weighted: 0.5·correct + 0.5·(1 - percentile / 100)
        ({"combination": "weighted"}, 0, [1.0, 0.0, 0.0, 0.5]),  # p3 over a limit: no speed
        ({"combination": "alternating", "speed_bar": 50}, 1, [1, -1, -1, -1]),
        ({"combination": "alternating", "speed_bar": None}, 1, [1, -1, -1, -1]),
    ],
)
def test_without_gating_a_failed_program_never_counts_as_fast(fields, step, expected):
    config = dataclasses.replace(RewardConfig("ungated", **fields), gate_on_correctness=False)
    got = rewards(config, PROBLEM, COSTS, CORRECT, step)
    assert got.tolist() == pytest.approx(expected)


def test_the_engine_and_the_timing_services_ranking_agree_on_failed_programs():
    rng = random.Random(5)
    references = np.array([[rng.random() for _ in range(3)] for _ in range(6)])
    programs = np.array(
        [[rng.choice([rng.random(), INF, NAN]) for _ in range(3)] for _ in range(40)]
    )
    tests = ["t0", "t1", "t2"]
    ours = speed_percentiles(programs, references, np.ones(3, dtype=bool))
    refs = [
        {t: Measured(float(c), True) for t, c in zip(tests, r, strict=True)} for r in references
    ]
    failed_rows = 0
    for row, mine in zip(programs, ours, strict=True):
        program = {
            t: Measured(0.0, False) if math.isnan(c) else Measured(float(c), c != TIMED_OUT)
            for t, c in zip(tests, row, strict=True)
        }
        theirs = speed_percentile(program, refs, tests)
        if theirs is None:
            failed_rows += 1
            assert math.isnan(mine)
        else:
            assert mine == pytest.approx(theirs)
    assert 10 < failed_rows < 40  # both kinds were drawn
