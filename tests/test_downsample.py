"""Downsampling keeps extremes, NaN markers and the ends, on numpy and in SQL alike."""

from __future__ import annotations

import numpy as np
import pytest

from runs import metric_store
from runs.downsample import downsample_indices


def test_a_short_series_is_returned_whole():
    steps = np.arange(10)
    assert downsample_indices(steps, np.ones(10), 10).tolist() == list(range(10))


def test_it_keeps_each_buckets_minimum_and_maximum_and_stays_within_the_limit():
    rng = np.random.default_rng(0)
    steps = np.arange(10_000)
    values = rng.normal(size=10_000)
    values[6123] = 40.0
    values[777] = -40.0
    keep = downsample_indices(steps, values, 200)
    assert len(keep) <= 200
    assert 6123 in keep and 777 in keep
    assert keep[0] == 0 and keep[-1] == 9_999
    # every bucket's extremes: 99 buckets of width ~101 steps
    n_buckets = (200 - 2) // 2
    buckets = np.floor(steps * n_buckets / 10_000).astype(int)
    for b in (0, 17, 98):
        in_bucket = np.flatnonzero(buckets == b)
        assert in_bucket[np.argmin(values[in_bucket])] in keep
        assert in_bucket[np.argmax(values[in_bucket])] in keep


def test_infinities_count_as_extremes_and_nan_is_kept_once_per_bucket():
    steps = np.arange(1000)
    values = np.zeros(1000)
    values[10] = np.inf
    values[20] = -np.inf
    values[500:510] = np.nan
    keep = downsample_indices(steps, values, 50)
    assert len(keep) <= 50
    assert 10 in keep and 20 in keep
    assert 500 in keep
    kept_nans = [i for i in keep if np.isnan(values[i])]
    assert 1 <= len(kept_nans) <= 2  # the range may straddle a bucket edge


def test_uneven_steps_are_bucketed_by_step_not_by_position():
    steps = np.concatenate([np.arange(0, 100), np.arange(10_000, 10_100)])
    values = np.concatenate([np.zeros(100), np.ones(100)])
    values[150] = 9.0
    keep = downsample_indices(steps, values, 20)
    assert 150 in keep and len(keep) <= 20


@pytest.mark.django_db(transaction=True)
def test_the_database_path_selects_the_same_points_as_the_numpy_engine(alice_api, alice_run):
    """On PostgreSQL the selection runs in SQL; it must match the reference engine."""
    rng = np.random.default_rng(1)
    steps = np.sort(rng.choice(50_000, size=6000, replace=False))
    values = rng.normal(size=6000).round(6)
    values[[100, 2000, 4500]] = [np.nan, np.inf, np.nan]
    values[3333] = 99.0
    points = [
        {"step": int(s), "key": "k", "value": "NaN" if np.isnan(v) else ("Infinity" if np.isinf(v) else float(v))}
        for s, v in zip(steps, values, strict=True)
    ]
    assert alice_api.post(
        f"/api/runs/{alice_run.pk}/metrics/", {"points": points}, format="json"
    ).status_code == 200
    series = alice_run.series.get(key="k")
    info = metric_store.SeriesInfo(series.id, series.count, series.first_step, series.last_step, series.nan_count)
    got = metric_store.read_series([info], 300)[series.id]
    expected = downsample_indices(steps, values, 300, may_hold_nan=True)
    assert got.downsampled and got.steps.tolist() == steps[expected].tolist()
    np.testing.assert_array_equal(got.values, values[expected])
