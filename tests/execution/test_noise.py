"""Noise statistics by hand."""

from __future__ import annotations

import pytest

from execution.noise import rank_jitter, repeat_stats


def test_repeat_stats_of_hand_computed_samples():
    stats = repeat_stats([1.0, 2.0, 3.0])
    assert stats.median == 2.0 and stats.mean == 2.0
    assert stats.cv == pytest.approx(0.5)  # stdev 1 / mean 2
    # t(0.975, 2) = 4.302653 (tables: 4.303); half-width = 4.302653 * 1 / sqrt(3)
    assert stats.ci_low == pytest.approx(2.0 - 4.302653 / 3**0.5)
    assert stats.ci_high == pytest.approx(2.0 + 4.302653 / 3**0.5)


def test_a_single_sample_has_no_spread():
    stats = repeat_stats([0.25])
    assert stats.cv is None and stats.ci_low is None and stats.median == 0.25


def test_rank_jitter_is_the_range_and_none_when_a_run_failed():
    assert rank_jitter([40.0, 55.0, 47.5]) == 15.0
    assert rank_jitter([40.0, None]) is None
