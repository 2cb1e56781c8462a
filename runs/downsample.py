"""Server-side downsampling of a metric series that keeps its extremes.

Plain numpy, no Django. The PostgreSQL read path (`runs.metric_store`) computes the same
selection in SQL; both follow the steps below, so a spike survives whichever database
serves the chart.

1. Nothing is dropped when the series has at most `max_points` points.
2. The step range [first, last] is cut into `n_buckets` equal-width buckets,
   bucket = floor((step - first) * n_buckets / (last - first + 1)).
3. In each bucket, keep the point of least value (ties: the earliest step) and the point of
   greatest value (ties: the latest step); infinities count as values, so they are kept.
4. In each bucket holding a NaN, keep its first NaN point (a NaN loss is news).
5. Keep the series' first and last points.
`n_buckets` = (max_points - 2) // 2, or // 3 when the series may hold NaN, so the result
never exceeds `max_points`.
"""

from __future__ import annotations

import numpy as np


def bucket_count(max_points: int, *, may_hold_nan: bool) -> int:
    per_bucket = 3 if may_hold_nan else 2
    return max(1, (max_points - 2) // per_bucket)


def bucket_of(steps: np.ndarray, first: int, last: int, n_buckets: int) -> np.ndarray:
    span = float(last - first + 1)
    raw = np.floor((steps - first).astype(np.float64) * n_buckets / span).astype(np.int64)
    return np.minimum(raw, n_buckets - 1)


def _first_per_group(sorted_indices: np.ndarray, groups: np.ndarray) -> np.ndarray:
    if len(sorted_indices) == 0:
        return sorted_indices
    starts = np.r_[True, groups[1:] != groups[:-1]]
    return sorted_indices[starts]


def _last_per_group(sorted_indices: np.ndarray, groups: np.ndarray) -> np.ndarray:
    if len(sorted_indices) == 0:
        return sorted_indices
    ends = np.r_[groups[1:] != groups[:-1], True]
    return sorted_indices[ends]


def downsample_indices(
    steps: np.ndarray, values: np.ndarray, max_points: int, *, may_hold_nan: bool | None = None
) -> np.ndarray:
    """Indices (ascending) of the points to keep. `steps` must be strictly ascending.

    `may_hold_nan` sizes the buckets; by default it is whether `values` holds a NaN.
    """
    steps = np.asarray(steps, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    n = len(steps)
    if n <= max_points:
        return np.arange(n)
    is_nan = np.isnan(values)
    if may_hold_nan is None:
        may_hold_nan = bool(is_nan.any())
    n_buckets = bucket_count(max_points, may_hold_nan=may_hold_nan)
    buckets = bucket_of(steps, int(steps[0]), int(steps[-1]), n_buckets)

    numeric = np.flatnonzero(~is_nan)
    # Sort numeric points by (bucket, value, step): a bucket's first is its minimum with the
    # earliest step, its last the maximum with the latest step.
    order = numeric[np.lexsort((steps[numeric], values[numeric], buckets[numeric]))]
    minima = _first_per_group(order, buckets[order])
    maxima = _last_per_group(order, buckets[order])

    nans = np.flatnonzero(is_nan)  # already in step order
    first_nans = _first_per_group(nans, buckets[nans])

    keep = np.concatenate([[0, n - 1], minima, maxima, first_nans])
    return np.unique(keep)
