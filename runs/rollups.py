"""Per-bucket extremes of metric series at a few fixed widths: plain numpy, no Django.

The run page asks for every series of a run at once, downsampled; scanning millions of raw
points per request is too slow (docs/benchmarks.md), so ingest keeps, for each series and
each width in ROLLUP_WIDTHS, one row per aligned bucket [b*width, (b+1)*width) holding the
bucket's extreme points: least value (ties: earliest step), greatest value (ties: latest
step) and first NaN. A coarse bucket is a union of fine ones, so its extremes are found
among the fine buckets' extremes; reading the finest level that is small enough gives
candidate points that `runs.downsample` thins to the requested size, spikes included.

Every array here carries a `series` column so that one call handles all the series of a
batch (a Python loop per series and level cost more than the database work).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

# Each width divides the next; a ladder of 8x keeps the level read for a chart within a
# factor of 8 of the resolution asked for.
ROLLUP_WIDTHS = (16, 128, 1024, 8192, 65536, 524288)


@dataclass
class Points:
    """Points as columns; value NaN for a NaN point; `series` tells series apart."""

    series: np.ndarray  # (N,) int64
    steps: np.ndarray  # (N,) int64
    values: np.ndarray  # (N,) float64
    times: np.ndarray  # (N,) float64, epoch seconds

    @classmethod
    def empty(cls) -> Points:
        return cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), np.empty(0))

    @classmethod
    def concat(cls, parts: list[Points]) -> Points:
        parts = [p for p in parts if len(p.steps)] or [cls.empty()]
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def __len__(self) -> int:
        return len(self.steps)

    def take(self, index: np.ndarray) -> Points:
        return Points(self.series[index], self.steps[index], self.values[index], self.times[index])

    def unique_by_step(self) -> Points:
        """One point per (series, step), the last one given winning, sorted."""
        order = np.lexsort((np.arange(len(self)), self.steps, self.series))
        s, st = self.series[order], self.steps[order]
        last = (
            np.r_[(s[1:] != s[:-1]) | (st[1:] != st[:-1]), True] if len(st) else np.empty(0, bool)
        )
        return self.take(order[last])


@dataclass
class Extremes:
    """One row per (series, bucket). A step of -1 means none (no numeric point / no NaN)."""

    series: np.ndarray
    bucket: np.ndarray
    min_step: np.ndarray
    min_value: np.ndarray
    min_time: np.ndarray
    max_step: np.ndarray
    max_value: np.ndarray
    max_time: np.ndarray
    nan_step: np.ndarray
    nan_time: np.ndarray

    def __len__(self) -> int:
        return len(self.bucket)

    def select(self, keep: np.ndarray) -> Extremes:
        return Extremes(*(getattr(self, f.name)[keep] for f in fields(self)))

    def points(self) -> Points:
        """The extreme points themselves, as candidates for a coarser level or a chart."""
        parts = []
        for step, value, time in (
            (self.min_step, self.min_value, self.min_time),
            (self.max_step, self.max_value, self.max_time),
            (self.nan_step, np.full(len(self.nan_step), np.nan), self.nan_time),
        ):
            has = step >= 0
            parts.append(Points(self.series[has], step[has], value[has], time[has]))
        return Points.concat(parts).unique_by_step()


def _group_starts(*keys: np.ndarray) -> np.ndarray:
    change = np.zeros(len(keys[0]), bool)
    if len(change):
        change[0] = True
        for key in keys:
            change[1:] |= key[1:] != key[:-1]
    return change


def bucket_extremes(points: Points, width: int) -> Extremes:
    """The extremes of each (series, aligned bucket of `width` steps) that holds a point."""
    buckets = points.steps // width
    order = np.lexsort((buckets, points.series))
    starts = _group_starts(points.series[order], buckets[order])
    group_series, group_bucket = points.series[order][starts], buckets[order][starts]
    n = len(group_bucket)

    out = Extremes(
        group_series,
        group_bucket,
        np.full(n, -1, np.int64),
        np.full(n, np.nan),
        np.full(n, np.nan),
        np.full(n, -1, np.int64),
        np.full(n, np.nan),
        np.full(n, np.nan),
        np.full(n, -1, np.int64),
        np.full(n, np.nan),
    )
    # Row index of each point: the rank of its (series, bucket) among the groups.
    row = np.empty(len(points), np.int64)
    row[order] = np.cumsum(starts) - 1

    is_nan = np.isnan(points.values)
    numeric = np.flatnonzero(~is_nan)
    # Within each row, numeric points sorted by (value, step): first = min, last = max.
    by_value = numeric[np.lexsort((points.steps[numeric], points.values[numeric], row[numeric]))]
    if len(by_value):
        r = row[by_value]
        first = by_value[np.r_[True, r[1:] != r[:-1]]]
        last = by_value[np.r_[r[1:] != r[:-1], True]]
        for pick, step, value, time in (
            (first, out.min_step, out.min_value, out.min_time),
            (last, out.max_step, out.max_value, out.max_time),
        ):
            step[row[pick]] = points.steps[pick]
            value[row[pick]] = points.values[pick]
            time[row[pick]] = points.times[pick]
    nans = np.flatnonzero(is_nan)
    if len(nans):
        nans = nans[np.lexsort((points.steps[nans], row[nans]))]
        r = row[nans]
        first_nans = nans[np.r_[True, r[1:] != r[:-1]]]
        out.nan_step[row[first_nans]] = points.steps[first_nans]
        out.nan_time[row[first_nans]] = points.times[first_nans]
    return out


def pick_level(span: int, max_points: int) -> int | None:
    """The finest level whose bucket count over `span` steps stays within max_points
    (each bucket gives up to 3 candidates, thinned afterwards); None when even the coarsest
    level is finer than that."""
    for level, width in enumerate(ROLLUP_WIDTHS):
        if span / width <= max_points:
            return level
    return None
