"""A deliberately degraded timing service (paper, s.5), the engine: every cost multiplied by
log-normal noise of the CV asked for and, at the rate asked for, slowed x1.5-x3; 0/0 changes
nothing bit for bit; a seed reproduces its draws; the training config bounds both settings."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest

from execution.degraded import SLOWDOWN_FACTORS, DegradedTiming, degrade_costs
from training.config import TrainConfig, stored_degraded_timing


class ScriptedDraws:
    """A generator that hands out the numbers it was given, in order, and records what it
    was asked for (a draw it was not given fails the test)."""

    def __init__(self, lognormal=(), below=(), factors=()):
        self.lognormal, self.below, self.factors = list(lognormal), list(below), list(factors)
        self.asked: list[tuple] = []

    def lognormvariate(self, mu, sigma):
        self.asked.append(("lognormvariate", mu, sigma))
        return self.lognormal.pop(0)

    def random(self):
        self.asked.append(("random",))
        return self.below.pop(0)

    def uniform(self, low, high):
        self.asked.append(("uniform", low, high))
        return self.factors.pop(0)


def bits(costs) -> list[str]:
    return [float(c).hex() for c in costs]


def test_zero_settings_give_the_costs_back_bit_for_bit_and_draw_nothing():
    costs = [0.1, math.inf, math.nan, 0.0, 1e-300, 0.30000000000000004]
    draws = ScriptedDraws()  # no number to give: any draw would fail
    assert bits(degrade_costs(costs, 0.0, 0.0, draws)) == bits(costs)
    assert draws.asked == []
    matrix = np.array([[0.1, math.inf], [math.nan, 0.2]])
    off = DegradedTiming(0.0, 0.0, seed=3)
    assert not off.active
    assert bits(off.apply(matrix, off.generator(1, 0)).ravel()) == bits(matrix.ravel())


def test_each_cost_gets_its_noise_and_a_slow_down_when_its_draw_falls_below_the_rate():
    draws = ScriptedDraws(
        lognormal=[1.1, 0.8, 1.5, 0.9], below=[0.2, 0.25, 0.9, 0.1], factors=[2.0, 2.5]
    )
    degraded = degrade_costs([1.0, 2.0, math.inf, math.nan], 0.3, 0.25, draws)
    # 0.2 < 0.25: slowed x2.0; 0.25 is not below the rate; inf stays inf, nan stays nan
    assert degraded[:3] == [1.0 * (1.1 * 2.0), 2.0 * 0.8, math.inf] and math.isnan(degraded[3])
    sigma = math.sqrt(math.log1p(0.3 * 0.3))  # the log-normal of CV 0.3 and mean 1
    lognormal = ("lognormvariate", -sigma * sigma / 2, sigma)
    slowed = ("uniform", *SLOWDOWN_FACTORS)
    assert draws.asked == [
        lognormal, ("random",), slowed,
        lognormal, ("random",),
        lognormal, ("random",),  # inf and nan draw as any cost does: positions stay aligned
        lognormal, ("random",), slowed,
    ]  # fmt: skip
    assert SLOWDOWN_FACTORS == (1.5, 3.0)


def test_noise_alone_or_slow_downs_alone_draw_only_their_own_numbers():
    noise_only = ScriptedDraws(lognormal=[1.25, 0.5])
    assert degrade_costs([2.0, 4.0], 0.2, 0.0, noise_only) == [2.5, 2.0]
    assert [a[0] for a in noise_only.asked] == ["lognormvariate"] * 2
    slow_only = ScriptedDraws(below=[0.0, 0.99], factors=[3.0])
    assert degrade_costs([2.0, 4.0], 0.0, 0.5, slow_only) == [6.0, 4.0]
    assert [a[0] for a in slow_only.asked] == ["random", "uniform", "random"]


def test_the_noise_has_mean_one_and_the_cv_asked_for():
    costs = degrade_costs([1.0] * 20_000, 0.3, 0.0, random.Random(7))
    # sd of the mean 0.3 / sqrt(20000) = 0.002; of the sample CV about 0.002 too
    assert statistics.fmean(costs) == pytest.approx(1.0, abs=0.01)
    assert statistics.pstdev(costs) / statistics.fmean(costs) == pytest.approx(0.3, abs=0.015)
    assert min(costs) > 0


@pytest.mark.parametrize("rate", [0.05, 0.2, 0.5])
def test_the_slow_down_rate_is_respected_within_binomial_bounds(rate):
    n = 10_000
    costs = degrade_costs([1.0] * n, 0.0, rate, random.Random(11))
    slowed = [c for c in costs if c != 1.0]
    bound = 5 * math.sqrt(rate * (1 - rate) / n)  # 5 standard deviations of the share
    assert abs(len(slowed) / n - rate) < bound
    low, high = SLOWDOWN_FACTORS
    assert all(low <= c <= high for c in slowed)
    assert statistics.fmean(slowed) == pytest.approx((low + high) / 2, abs=0.05)  # uniform


def test_every_cost_is_slowed_at_rate_one():
    costs = degrade_costs([1.0] * 200, 0.0, 1.0, random.Random(0))
    assert all(1.5 <= c <= 3.0 for c in costs)


def test_a_seed_step_and_group_reproduce_the_same_degradation_and_any_other_differs():
    costs = np.array([[0.10, 0.20, math.inf], [0.15, math.nan, 0.30]])
    degraded = DegradedTiming(0.3, 0.2, seed=5)

    def once(setting: DegradedTiming, step: int, group: int) -> list[str]:
        return bits(setting.apply(costs, setting.generator(step, group)).ravel())

    first = once(degraded, 3, 1)
    assert first == once(DegradedTiming(0.3, 0.2, seed=5), 3, 1)  # a new generator, same draws
    assert first != bits(costs.ravel())
    for other in (
        once(degraded, 4, 1),
        once(degraded, 3, 0),
        once(DegradedTiming(0.3, 0.2, 6), 3, 1),
    ):
        assert other != first
    # the generator's text seed hashes the same in every process (no PYTHONHASHSEED)
    assert degraded.generator(3, 1).random() == random.Random("degraded-timing:5:3:1").random()


def test_a_matrix_is_degraded_in_row_major_order():
    costs = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    setting = DegradedTiming(0.4, 0.3, seed=2)
    matrix = setting.apply(costs, setting.generator(0, 0))
    flat = degrade_costs(costs.ravel().tolist(), 0.4, 0.3, setting.generator(0, 0))
    assert matrix.shape == (2, 3) and bits(matrix.ravel()) == bits(flat)


def test_settings_outside_their_range_are_refused():
    with pytest.raises(ValueError, match="cv must be >= 0"):
        degrade_costs([1.0], -0.1, 0.0, random.Random(0))
    with pytest.raises(ValueError, match="slowdown_rate in"):
        degrade_costs([1.0], 0.0, 1.5, random.Random(0))


def test_a_request_carries_the_degradation_and_reads_it_back():
    setting = DegradedTiming(0.25, 0.1, seed=9)
    assert DegradedTiming.from_dict(setting.as_dict()) == setting
    assert DegradedTiming.from_dict(None) is None and DegradedTiming.from_dict({}) is None
    assert setting.description() == (
        "log-normal noise of CV 25% on every measured cost, programs and references alike; "
        "10% of costs slowed x1.5-x3"
    )


def test_the_training_config_bounds_both_settings_and_seeds_the_degradation():
    config = TrainConfig.from_dict(
        {"degraded_timing_cv": 0.3, "degraded_slowdown_rate": 0.1, "seed": 4}
    )
    assert config.degraded_timing() == DegradedTiming(0.3, 0.1, seed=4)
    assert not TrainConfig().degraded_timing().active  # the service as it is, by default
    with pytest.raises(ValueError, match=r"degraded_timing_cv: must be in \[0, 1\], not 1.5"):
        TrainConfig.from_dict({"degraded_timing_cv": 1.5})
    with pytest.raises(ValueError, match=r"degraded_slowdown_rate: must be in \[0, 1\], not -0.1"):
        TrainConfig.from_dict({"degraded_slowdown_rate": -0.1})
    # a stored config: older runs and runs trained elsewhere have no such fields
    assert stored_degraded_timing(config.as_dict()) == config.degraded_timing()
    assert not stored_degraded_timing({"external": True}).active


def test_only_a_degraded_run_logs_its_degradation_each_step():
    from training.loop import _degraded_metrics  # torch: only this test needs it

    assert _degraded_metrics(TrainConfig()) == {}  # no series added to every other run
    assert _degraded_metrics(TrainConfig(degraded_slowdown_rate=0.1)) == {
        "timing/degraded_cv": 0.0,
        "timing/degraded_slowdown_rate": 0.1,
    }
