"""Per-bucket extremes: by hand, built incrementally, and coarse levels built from fine ones."""

from __future__ import annotations

import numpy as np

from runs.rollups import ROLLUP_WIDTHS, Points, bucket_extremes, pick_level


def points(series, steps, values, times=None) -> Points:
    steps = np.asarray(steps, np.int64)
    return Points(
        np.asarray(series, np.int64),
        steps,
        np.asarray(values, np.float64),
        np.asarray(times if times is not None else steps * 10.0, np.float64),
    )


def test_extremes_of_hand_built_buckets():
    # series 1: bucket 0 holds steps 0-3, bucket 1 holds 4-7 (width 4); series 2: bucket 0
    p = points(
        [1, 1, 1, 1, 1, 1, 2, 2],
        [0, 1, 2, 3, 5, 6, 0, 1],
        [3.0, -1.0, -1.0, np.nan, np.inf, np.nan, 7.0, 7.0],
    )
    e = bucket_extremes(p, 4)
    assert e.series.tolist() == [1, 1, 2] and e.bucket.tolist() == [0, 1, 0]
    assert e.min_step.tolist() == [1, 5, 0]  # tie at -1.0: earliest step
    assert e.max_step.tolist() == [0, 5, 1]  # tie at 7.0: latest step
    assert e.max_value.tolist() == [3.0, np.inf, 7.0]
    assert e.nan_step.tolist() == [3, 6, -1]
    assert e.nan_time.tolist()[:2] == [30.0, 60.0]


def test_extremes_kept_incrementally_equal_extremes_of_the_whole():
    rng = np.random.default_rng(3)
    steps = np.arange(5000)
    values = rng.normal(size=5000).round(1)  # many ties
    values[rng.choice(5000, 40)] = np.nan
    whole = points(np.zeros(5000), steps, values)
    for width in ROLLUP_WIDTHS[:3]:
        kept = None
        for start in range(0, 5000, 333):  # batches that straddle bucket edges
            batch = whole.take(np.arange(start, min(start + 333, 5000)))
            parts = [batch] if kept is None else [kept.points(), batch]
            merged = bucket_extremes(Points.concat(parts), width)
            if kept is not None:  # untouched buckets stay as they were
                untouched = ~np.isin(kept.bucket, merged.bucket)
                merged = bucket_extremes(
                    Points.concat([kept.select(untouched).points(), merged.points()]), width
                )
            kept = merged
        expected = bucket_extremes(whole, width)
        for name in ("bucket", "min_step", "max_step", "nan_step"):
            assert getattr(kept, name).tolist() == getattr(expected, name).tolist(), (width, name)


def test_a_coarse_level_built_from_the_finer_one_matches_the_raw_points():
    rng = np.random.default_rng(4)
    raw = points(rng.integers(0, 3, 20_000), rng.permutation(20_000), rng.normal(size=20_000))
    raw = raw.unique_by_step()
    fine = bucket_extremes(raw, ROLLUP_WIDTHS[0])
    coarse_from_fine = bucket_extremes(fine.points(), ROLLUP_WIDTHS[1])
    coarse = bucket_extremes(raw, ROLLUP_WIDTHS[1])
    assert coarse_from_fine.min_step.tolist() == coarse.min_step.tolist()
    assert coarse_from_fine.max_step.tolist() == coarse.max_step.tolist()


def test_pick_level_takes_the_finest_level_within_the_budget():
    assert pick_level(1_000, 2_000) == 0
    assert pick_level(100_000, 2_000) == 1  # 100000 / 128 = 781 buckets
    assert pick_level(10**12, 2_000) is None
