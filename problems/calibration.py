"""Drift calibration of stored reference runtimes (paper, section 2). Plain Python.

Reference runtimes are measured once and stored; months later the machine (or its kernel,
compiler, neighbours) is not the same, and a program measured today ranked against stale
references lands in the wrong place. Re-measuring a subset of (reference, test) pairs gives
pairs (old, new); a robust line `new ≈ a·old + b` maps every stored runtime to today's scale.

Rank agreement (the paper's Spearman 0.54 → 0.96) is measured as a program is ranked: each
re-measured reference in turn plays a fresh program; its percentile among the *other*
references' stored runtimes (what ranking against the store gives) is compared with its
percentile among their re-measured runtimes (what ranking against fresh references gives).
Spearman's rho between the two, pooled over every pair, is the agreement: before correction
with the stored runtimes as they are, after with a·old + b.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from dataclasses import dataclass

from scipy.stats import spearmanr, theilslopes

from foundation.ranking import percentile_on_test


@dataclass(frozen=True)
class Pair:
    solution: str
    test: str
    old: float  # stored cost
    new: float  # the re-measurement


@dataclass
class DriftFit:
    slope: float
    intercept: float
    spearman_before: float | None
    spearman_after: float | None
    pairs: int

    def correct(self, old: float) -> float:
        return self.slope * old + self.intercept


def _leave_one_out(pairs: list[Pair], stored: dict[tuple[str, str], float]):
    """(percentile among the others' stored costs, among their new costs) per pair."""
    by_test: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_test[pair.test].append(pair)
    against_stored, against_fresh = [], []
    for test_pairs in by_test.values():
        if len(test_pairs) < 2:
            continue
        for pair in test_pairs:
            others = [p for p in test_pairs if p is not pair]
            against_stored.append(
                percentile_on_test(pair.new, [stored[(p.solution, p.test)] for p in others])
            )
            against_fresh.append(percentile_on_test(pair.new, [p.new for p in others]))
    return against_stored, against_fresh


def rank_agreement(pairs: list[Pair], corrected: dict[tuple[str, str], float]) -> float | None:
    """Spearman's rho between ranking against `corrected` stored costs and against the
    re-measured ones (module notes); None with too few pairs or no variation."""
    stored, fresh = _leave_one_out(pairs, corrected)
    if len(stored) < 3:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: rho is NaN, handled below
        rho = spearmanr(stored, fresh).statistic
    return None if math.isnan(rho) else float(rho)


def fit_drift(pairs: list[Pair]) -> DriftFit:
    """Theil-Sen line through (old, new), and the rank agreement before and after. ValueError
    with fewer than 2 pairs or no spread in the old costs.

    1. slope a: the median of the pairwise slopes, so runs disturbed by a noisy neighbour
       (up to ~29% of them) do not tilt it;
    2. intercept b: the median of the residuals new − a·old (scipy's method="joint"). Not
       median(new) − a·median(old) (scipy's default, "separate"): median(new) is read off the
       whole spread of costs (milliseconds to seconds), so slowed runs, all on one side, move
       it along that spread and b with it (by 0.03-0.1 s with a tenth to a fifth of the runs
       slowed, against the paper's b = 0.053 s: tests/problems/test_calibration.py), while the
       residuals are only noise wide.
    """
    usable = [p for p in pairs if math.isfinite(p.old) and math.isfinite(p.new)]
    if len(usable) < 2:
        raise ValueError(f"pairs: {len(usable)} usable (old, new) pairs; at least 2 needed")
    if len({p.old for p in usable}) < 2:
        raise ValueError("pairs: every stored cost is the same; no line can be fitted")
    slope, intercept, _, _ = theilslopes(
        [p.new for p in usable], [p.old for p in usable], method="joint"
    )
    fit = DriftFit(float(slope), float(intercept), None, None, len(usable))
    raw = {(p.solution, p.test): p.old for p in usable}
    fit.spearman_before = rank_agreement(usable, raw)
    fit.spearman_after = rank_agreement(usable, {k: fit.correct(v) for k, v in raw.items()})
    return fit
