"""The trainer's per-step timing noise: rank jitter of the references the scorer re-measures,
the CV of repeated times and the sandbox errors, on hand-built measurements and on a group
scored in the sandbox."""

from __future__ import annotations

import dataclasses

import pytest

from execution.engine import CaseResult, ExecutionReport
from execution.samples import FAST, MIDDLE, SLOW
from foundation.ranking import EXACT
from rewards.engine import RewardConfig
from scoring.scorer import (
    Score,
    reference_rank_jitter,
    repeat_cv,
    score_group_retrying,
)
from training.loop import _noise_metrics
from training.smoke import sum_scoring_problem


def report(*tests: list[float] | str) -> ExecutionReport:
    """One program's report: per test its CPU times over the rounds, or a verdict."""
    results = [
        CaseResult(f"t{i}", t, None, None, 0)
        if isinstance(t, str)
        else CaseResult(f"t{i}", "OK", min(t), None, 0, cpu_samples=list(t))
        for i, t in enumerate(tests)
    ]
    return ExecutionReport("OK", "cpu", results)


def test_rank_jitter_is_the_mean_range_of_each_references_percentile_over_the_rounds():
    # round 1: a 1.0 < b 2.0 < c 3.0; round 2: b 2.0 < a 2.5 < c 3.0 (no tie band)
    a, b, c = report([1.0, 2.5]), report([2.0, 2.0]), report([3.0, 3.0])
    # a: 0 then 50; b: 50 then 0; c: 100 both times
    assert reference_rank_jitter([a, b, c], EXACT) == pytest.approx((50 + 50 + 0) / 3)
    assert reference_rank_jitter([a, b, c], EXACT) > 0
    steady = [report([1.0, 1.01]), report([2.0, 2.02])]
    assert reference_rank_jitter(steady, EXACT) == 0.0


def test_rank_jitter_needs_two_references_and_two_rounds():
    assert reference_rank_jitter([report([1.0, 1.1])], EXACT) is None
    assert reference_rank_jitter([report([1.0]), report([2.0])], EXACT) is None
    # a timed-out reference is slower than all in every round: it moves nothing
    timed_out = [report([1.0, 3.0]), report([2.0, 2.0]), report("TIME_LIMIT")]
    assert reference_rank_jitter(timed_out, EXACT) == pytest.approx((50 + 50 + 0) / 3)


def test_repeat_cv_is_the_median_over_program_and_test_of_repeated_times():
    reports = [report([1.0, 1.0], [2.0, 2.4]), report([1.0, 3.0], "WRONG_ANSWER"), report([5.0])]
    # CVs: 0, 0.1286 (2.0 / 2.4), 0.7071 (1.0 / 3.0); a single run and a failure have none
    assert repeat_cv(reports) == pytest.approx(0.4 / 2**0.5 / 2.2)
    assert repeat_cv([report([1.0]), report("TIME_LIMIT")]) is None


def score(**noise) -> Score:
    return Score(reward=1.0, verdict="OK", correct=True, speed_percentile=10.0, costs=[], **noise)


def test_the_step_logs_sandbox_errors_summed_and_noise_averaged_over_its_groups():
    groups = [
        [score(rank_jitter=4.0, repeat_cv=0.02, sandbox_errors=2)] * 3,
        [score(rank_jitter=8.0, repeat_cv=0.04, sandbox_errors=1)] * 3,
        [score()] * 3,  # ranked against stored runtimes, timed once: no noise statistics
    ]
    assert _noise_metrics(groups) == {
        "sandbox/errors": 3.0,
        "timing/rank_jitter": 6.0,
        "timing/repeat_cv": pytest.approx(0.03),
    }
    # nothing re-measured: no jitter point at all (a NaN would read as a failure)
    assert _noise_metrics([[score()]]) == {"sandbox/errors": 0.0}


@pytest.fixture(scope="module")
def remeasured_problem(tmp_path_factory):
    problem = sum_scoring_problem(tmp_path_factory.mktemp("sum"), n=100_000)
    references = {"fast": FAST, "middle": MIDDLE, "slow": SLOW}
    return dataclasses.replace(problem, reference_programs=references)


def test_a_group_scored_beside_re_measured_references_carries_its_timing_noise(
    remeasured_problem,
):
    config = RewardConfig("binary-top50", speed_bar=50, timing_repeats=3, timing_settle=0.0)
    assert config.reference_timing == "interleaved"
    scores = score_group_retrying([FAST, SLOW, None], remeasured_problem, config)
    jitters = {s.rank_jitter for s in scores}
    assert len(jitters) == 1  # one value for the group, in each of its scores
    (jitter,) = jitters
    assert jitter is not None and 0.0 <= jitter <= 100.0
    assert all(s.repeat_cv is not None and 0.0 <= s.repeat_cv < 1.0 for s in scores)
    assert all(s.sandbox_errors == 0 for s in scores)
    stored = dataclasses.replace(remeasured_problem, reference_programs={})
    (alone,) = score_group_retrying([FAST], stored, config)
    assert alone.rank_jitter is None and alone.repeat_cv is not None  # nothing re-measured
