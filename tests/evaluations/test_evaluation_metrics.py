"""The evaluation figures (evaluations.metrics) against values worked out by hand, and the
scaling exponent telling O(n) from O(n²) on real programs in the sandbox."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evaluations import metrics
from evaluations.complexity import measure_scaling
from evaluations.metrics import SampleOutcome as S

WRONG = S(False, None)


def test_pass_at_k_is_the_unbiased_estimator():
    assert metrics.pass_at_k(5, 2) == pytest.approx(0.4)  # k = 1: c / n
    assert metrics.pass_at_k(5, 2, k=2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert metrics.pass_at_k(5, 0) == 0.0 and metrics.pass_at_k(5, 5) == 1.0
    assert metrics.pass_at_k(4, 3, k=2) == 1.0  # n - c < k: every draw of 2 holds a pass
    with pytest.raises(ValueError, match="c <= n"):
        metrics.pass_at_k(3, 4)


def test_p_tau_counts_correct_samples_within_the_top_tau_percent():
    problems = [
        # percentiles 10, 40, 60, 25 correct and one wrong
        [S(True, 10.0), S(True, 40.0), S(True, 60.0), WRONG, S(True, 25.0)],
        [WRONG, WRONG, S(True, 5.0), S(True, 90.0)],
    ]
    found = metrics.p_tau(problems, (100, 50, 30, 10))
    # by hand: per problem c/n, then the mean over the two problems
    expected = {
        100: (4 / 5 + 2 / 4) / 2,
        50: (3 / 5 + 1 / 4) / 2,
        30: (2 / 5 + 1 / 4) / 2,
        10: (1 / 5 + 1 / 4) / 2,
    }
    for tau, value in expected.items():
        estimate = found[float(tau)]
        assert estimate.value == pytest.approx(value)
        # resampling two problems: the interval lies between their two values
        per_problem = metrics.per_problem_pass(problems, tau)
        assert per_problem.min() - 1e-12 <= estimate.low <= estimate.value
        assert estimate.value <= estimate.high <= per_problem.max() + 1e-12
    assert metrics.passes(S(True, 30.0), 30) and not metrics.passes(S(True, 30.1), 30)


def test_the_bootstrap_interval_is_seeded_and_narrows_with_more_problems():
    rng = np.random.default_rng(3)
    few, many = rng.random(10), rng.random(1000)
    assert metrics.bootstrap_interval(few, seed=1) == metrics.bootstrap_interval(few, seed=1)
    width = lambda interval: interval[1] - interval[0]  # noqa: E731
    assert width(metrics.bootstrap_interval(many)) < width(metrics.bootstrap_interval(few)) / 3
    assert all(math.isnan(v) for v in metrics.bootstrap_interval(np.array([])))


def test_one_problem_has_no_interval_rather_than_a_zero_width_one():
    # every resample of one problem is that problem: low = high would pass for certainty
    assert all(math.isnan(v) for v in metrics.bootstrap_interval(np.array([0.25])))
    one = metrics.p_tau([[S(True, 10.0), S(False, None)]], (100,))[100.0]
    assert one.value == 0.5 and math.isnan(one.low) and math.isnan(one.high)
    assert metrics.json_safe(one.as_dict()) == {"value": 0.5, "low": None, "high": None}
    two = metrics.bootstrap_interval(np.array([0.0, 1.0]))
    assert two[0] < two[1]  # two problems already spread
    assert "no 95% interval" in metrics.few_problems_warning(1)


def correct(*costs: float) -> list[S]:
    return [S(True, 50.0, c) for c in costs]


def test_the_win_rate_of_a_constructed_pair_has_a_known_answer():
    a = {
        "p1": correct(1.0, 2.0, 30.0),  # median 2.0 (the outlier would pull a mean to 11)
        "p2": correct(1.0),
        "p3": correct(4.0, 1.0, 2.0, 3.0),  # even count: the lower middle, 2.0
        "p4": correct(5.0),
        "p5": correct(1.00),
        "p6": correct(3.0) + [WRONG],
        "p7": [WRONG, WRONG],
        "only-a": correct(1.0),
    }
    b = {
        "p1": correct(3.0, 3.0, 3.0),  # a wins: 2.0 < 3.0
        "p2": correct(2.0),  # a wins
        "p3": correct(2.5),  # a wins: 2.0 vs 2.5 is 25% apart
        "p4": correct(1.0),  # a loses
        "p5": correct(1.04),  # tie: within 5% of the faster
        "p6": [WRONG, WRONG],  # a wins: b has no correct sample
        "p7": [WRONG],  # neither: left out
        "only-b": correct(1.0),  # not evaluated by both: left out
    }
    found = metrics.win_rate(a, b, tie_band=0.05)
    assert (found.wins, found.losses, found.ties, found.neither) == (4, 1, 1, 1)
    assert found.compared == 6 and found.rate == pytest.approx((4 + 0.5) / 6)
    assert found.low <= found.rate <= found.high
    mirrored = metrics.win_rate(b, a, tie_band=0.05)
    assert mirrored.rate == pytest.approx(1 - found.rate)
    assert metrics.duel(correct(math.inf), correct(math.inf), 0.05) == metrics.TIE


def test_beating_the_fastest_human_means_strictly_faster_than_the_fastest_correct_one():
    references = [2.0, math.inf, math.nan, 1.5]  # one timed out, one failed
    assert metrics.beats_fastest_human(correct(3.0, 1.4), references)
    assert not metrics.beats_fastest_human(correct(1.5, 9.0), references)
    assert not metrics.beats_fastest_human([WRONG], references)
    assert not metrics.beats_fastest_human(correct(1.0), [math.inf])


def test_the_scaling_exponent_of_synthetic_costs():
    sizes = [1000, 2000, 4000, 8000]
    startup = 0.02
    linear = [startup + 1e-5 * n for n in sizes]
    quadratic = [startup + 1e-8 * n * n for n in sizes]
    assert metrics.scaling_exponent(sizes, linear, startup) == pytest.approx(1.0)
    assert metrics.scaling_exponent(sizes, quadratic, startup) == pytest.approx(2.0)
    # without taking start-up off, a fast program looks flatter than it is
    assert metrics.scaling_exponent(sizes, linear) < 0.9
    # points with too little work beyond start-up, or timed out, are not fitted
    assert metrics.scaling_exponent(sizes, [startup, startup, math.inf, 1.0], startup) is None
    assert metrics.complexity_improved(1.0, [2.0, 2.1, None], margin=0.25)
    assert not metrics.complexity_improved(1.9, [2.0, 2.1], margin=0.25)
    assert metrics.complexity_improved(None, [2.0], margin=0.25) is None


GENERATOR = """import random, sys
seed, n = int(sys.argv[1]), int(sys.argv[2])
random.seed(seed)
print(n)
print(*[random.randint(1, 10**6) for _ in range(n)])
"""
LINEAR = """import sys
d = sys.stdin.read().split()
best = 0
for x in d[1:]:
    v = int(x)
    if v % 7 > best % 7:
        best = v
print(best)
"""
QUADRATIC = """import sys
d = list(map(int, sys.stdin.read().split()[1:]))
c = 0
for i in range(len(d)):
    x = d[i]
    for y in d[i + 1:]:
        if y < x:
            c += 1
print(c)
"""


def test_measured_exponents_tell_linear_from_quadratic_programs():
    # sizes where the work is well above start-up and timer noise (>= 20 ms at the smallest)
    linear = measure_scaling({"linear": LINEAR}, GENERATOR, 400_000, 7)
    quadratic = measure_scaling({"quadratic": QUADRATIC}, GENERATOR, 1_500, 7)
    assert linear.sizes == [100_000, 200_000, 400_000, 800_000]
    assert 0.7 < linear.exponents["linear"] < 1.3, linear.as_dict()
    assert 1.7 < quadratic.exponents["quadratic"] < 2.3, quadratic.as_dict()
    assert 0 < linear.startup_s < 0.2
