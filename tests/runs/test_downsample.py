"""Downsampling keeps extremes, NaN markers and the ends, on numpy and in SQL alike."""

from __future__ import annotations

import numpy as np
import pytest

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
def test_the_database_path_keeps_spikes_nan_and_ends_within_the_limit(alice_api, alice_run):
    """Served from the rollups kept at ingest: a subset of the stored points that holds the
    global extremes, the NaN and infinite points and both ends, at most max_points long."""
    rng = np.random.default_rng(1)
    steps = np.sort(rng.choice(50_000, size=6000, replace=False))
    values = rng.normal(size=6000).round(6)
    values[[100, 4500]] = np.nan
    values[2000] = np.inf
    values[3333] = 99.0
    values[777] = -99.0
    points = [
        {
            "step": int(s),
            "key": "k",
            "value": "NaN" if np.isnan(v) else ("Infinity" if np.isinf(v) else float(v)),
        }
        for s, v in zip(steps, values, strict=True)
    ]
    for start in range(0, 6000, 1000):  # several batches, as a trainer sends them
        assert (
            alice_api.post(
                f"/api/runs/{alice_run.pk}/metrics/",
                {"points": points[start : start + 1000]},
                format="json",
            ).status_code
            == 200
        )
    series = alice_api.get(f"/api/runs/{alice_run.pk}/metrics/?max_points=300").json()["series"][
        "k"
    ]
    assert series["downsampled"] and 100 <= len(series["steps"]) <= 300
    stored = dict(zip(steps.tolist(), values.tolist(), strict=True))
    for step, value in zip(series["steps"], series["values"], strict=True):
        expected = stored[step]
        assert (
            (value == "NaN" and np.isnan(expected))
            or value == expected
            or (value == "Infinity" and expected == np.inf)
        )
    for must in (steps[0], steps[-1], steps[100], steps[2000], steps[3333], steps[777]):
        assert int(must) in series["steps"]


@pytest.mark.django_db(transaction=True)
def test_overwriting_a_spike_removes_it_from_the_downsampled_series(alice_api, alice_run):
    points = [{"step": s, "key": "k", "value": 0.0} for s in range(3000)]
    points[1234]["value"] = 500.0
    url = f"/api/runs/{alice_run.pk}/metrics/"
    alice_api.post(url, {"points": points}, format="json")
    assert 500.0 in alice_api.get(url + "?max_points=100").json()["series"]["k"]["values"]
    alice_api.post(url, {"points": [{"step": 1234, "key": "k", "value": 1.5}]}, format="json")
    series = alice_api.get(url + "?max_points=100").json()["series"]["k"]
    assert 500.0 not in series["values"] and 1.5 in series["values"]


@pytest.mark.django_db(transaction=True)
def test_rebuilding_the_rollups_gives_the_same_chart(alice_api, alice_run):
    from runs import services

    rng = np.random.default_rng(2)
    points = [
        {"step": s, "key": "k", "value": float(v)} for s, v in enumerate(rng.normal(size=4000))
    ]
    url = f"/api/runs/{alice_run.pk}/metrics/"
    for start in range(0, 4000, 500):
        alice_api.post(url, {"points": points[start : start + 500]}, format="json")
    before = alice_api.get(url + "?max_points=200").json()["series"]["k"]
    assert services.do_rebuild_rollups(alice_run) == 1
    after = alice_api.get(url + "?max_points=200").json()["series"]["k"]
    assert before["steps"] == after["steps"] and before["values"] == after["values"]
