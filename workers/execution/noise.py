"""Noise statistics of repeated measurements. Plain Python.

- coefficient of variation (CV) of one program's repeats on one test: stdev / mean;
- a 95% confidence interval of the mean of the repeats (Student's t, k - 1 degrees of freedom);
- rank jitter: the range (max - min) of a program's speed percentile over independent
  re-measurements, in percentile points (the paper: ~41 on busy hosts, ~2 isolated).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

# two-sided 95% Student's t quantiles by degrees of freedom; 1.96 beyond the table
_T95 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    15: 2.131,
    20: 2.086,
    30: 2.042,
}


def t95(degrees_of_freedom: int) -> float:
    for df in sorted(_T95):
        if degrees_of_freedom <= df:
            return _T95[df]
    return 1.96


@dataclass(frozen=True)
class RepeatStats:
    n: int
    median: float
    mean: float
    cv: float | None  # None with fewer than 2 repeats or a zero mean
    ci_low: float | None
    ci_high: float | None


def repeat_stats(samples: list[float]) -> RepeatStats:
    if not samples:
        raise ValueError("samples: at least one measurement is needed")
    n = len(samples)
    mean = statistics.fmean(samples)
    median = statistics.median(samples)
    if n < 2:
        return RepeatStats(n, median, mean, None, None, None)
    stdev = statistics.stdev(samples)
    half = t95(n - 1) * stdev / math.sqrt(n)
    cv = stdev / mean if mean > 0 else None
    return RepeatStats(n, median, mean, cv, mean - half, mean + half)


def rank_jitter(percentiles: list[float | None]) -> float | None:
    """max - min of the speed percentiles of independent re-measurements; None if any is
    missing (the program was not correct every time, itself a finding)."""
    if not percentiles or any(p is None for p in percentiles):
        return None
    return max(percentiles) - min(percentiles)
