"""Noise statistics of repeated measurements. Plain Python (scipy for the t quantile).

- coefficient of variation (CV) of one program's repeats on one test: stdev / mean;
- a 95% confidence interval of the mean of the repeats (Student's t, k - 1 degrees of freedom);
- rank jitter: the range (max - min) of a program's speed percentile over independent
  re-measurements, in percentile points (the paper: ~41 on busy hosts, ~2 isolated).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from scipy.stats import t as student_t


def t95(degrees_of_freedom: int) -> float:
    """The two-sided 95% quantile of Student's t with `degrees_of_freedom`. (Not a table
    looked up at the next listed entry: between 10 and 30 and beyond, that reads a smaller
    quantile than the true one and narrows the interval by up to 4%.)"""
    return float(student_t.ppf(0.975, degrees_of_freedom))


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
