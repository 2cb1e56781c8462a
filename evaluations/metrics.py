"""Evaluation metrics (PAPER.md section 5), plain numpy: no Django, no measurement.

Inputs are per-problem lists of sample outcomes; docs/metrics.md defines every figure.

- pτ pass@k: a sample passes at τ when it is correct and its mean speed percentile among the
  problem's human references (0 = faster than all of them) is at most τ. With n samples of
  which c pass, the unbiased estimator of pass@k is 1 - C(n-c, k) / C(n, k) (Chen et al.,
  2021); for k = 1 it is c / n. The benchmark figure is its mean over problems.
- Bootstrap confidence intervals resample problems (not samples) with replacement.
- Win rate between two evaluations, per problem on the median-speed correct sample of each.
- Against the fastest human: the best sample beats the fastest correct reference.
- Scaling exponents: the slope of log(runtime) against log(input size).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DEFAULT_TAUS = (100.0, 50.0, 30.0, 10.0)
BOOTSTRAP_ROUNDS = 2000
CONFIDENCE = 0.95
MIN_PROBLEMS_FOR_INTERVALS = 10
"""Fewer problems than this and the bootstrap interval over problems says little: k problems
have only C(2k-1, k) distinct resamples (3 problems: 10; 1 problem: the point itself), and a
percentile bootstrap covers well under its nominal 95% on a handful of values."""


@dataclass(frozen=True)
class SampleOutcome:
    correct: bool
    speed_percentile: float | None  # mean over the problem's tests; None unless correct
    cost_s: float | None = None  # CPU s over the optimization tests (inf: timed out); if correct


def passes(sample: SampleOutcome, tau: float) -> bool:
    return sample.correct and sample.speed_percentile is not None and sample.speed_percentile <= tau


def pass_at_k(n: int, c: int, k: int = 1) -> float:
    """Unbiased pass@k from n samples of which c pass: 1 - C(n-c, k) / C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def per_problem_pass(samples: list[list[SampleOutcome]], tau: float, k: int = 1) -> np.ndarray:
    """(problems,) pass@k at τ of each problem's samples."""
    return np.array([pass_at_k(len(s), sum(passes(x, tau) for x in s), k) for s in samples])


def bootstrap_interval(
    per_problem: np.ndarray,
    statistic=np.mean,
    *,
    rounds: int = BOOTSTRAP_ROUNDS,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of `statistic` over problems resampled with
    replacement; (nan, nan), no interval, under two problems: every resample of one problem
    is that problem, and low = high would pass a point for an interval. per_problem:
    (problems,) or (problems, ...) when `statistic` reduces axis 0 of each resample."""
    values = np.asarray(per_problem, dtype=float)
    if len(values) < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(values), size=(rounds, len(values)))
    estimates = np.array([statistic(values[row]) for row in picks])
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(estimates, [tail, 100.0 - tail])
    return (float(low), float(high))


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float

    def as_dict(self) -> dict:
        return {"value": self.value, "low": self.low, "high": self.high}


def p_tau(
    samples: list[list[SampleOutcome]], taus=DEFAULT_TAUS, *, seed: int = 0
) -> dict[float, Estimate]:
    """pτ pass@1 for each τ: the mean over problems, with its bootstrap interval."""
    result = {}
    for tau in taus:
        per_problem = per_problem_pass(samples, tau)
        value = float(per_problem.mean()) if len(per_problem) else math.nan
        result[float(tau)] = Estimate(value, *bootstrap_interval(per_problem, seed=seed))
    return result


def few_problems_warning(n_problems: int | None) -> str:
    """The warning shown beside intervals over fewer than MIN_PROBLEMS_FOR_INTERVALS
    problems; "" for enough problems (or none known yet)."""
    if n_problems is None or n_problems >= MIN_PROBLEMS_FOR_INTERVALS:
        return ""
    if n_problems == 0:
        return "No problem was scored: there is no interval."
    if n_problems == 1:
        return (
            "Only 1 problem: there is no spread between problems to resample, so no 95% "
            f"interval; evaluate on at least {MIN_PROBLEMS_FOR_INTERVALS} problems for one."
        )
    distinct = math.comb(2 * n_problems - 1, n_problems)
    noun = "problem" if n_problems == 1 else "problems"
    return (
        f"Only {n_problems} {noun}: the 95% intervals resample them and can take at most "
        f"{distinct} distinct value{'' if distinct == 1 else 's'}, so they say little; "
        f"evaluate on at least {MIN_PROBLEMS_FOR_INTERVALS} problems before trusting them."
    )


# -- win rate ---------------------------------------------------------------------------------

WIN, LOSS, TIE, NEITHER = 1.0, 0.0, 0.5, None


def median_speed_cost(samples: list[SampleOutcome]) -> float | None:
    """The cost of the median-speed correct sample (the lower middle one of an even count,
    so that it is a sample's own cost); None when no sample is correct."""
    costs = sorted(s.cost_s for s in samples if s.correct and s.cost_s is not None)
    if not costs:
        return None
    return costs[(len(costs) - 1) // 2]


def duel(a: list[SampleOutcome], b: list[SampleOutcome], tie_band: float) -> float | None:
    """One problem's outcome for side a: WIN 1, LOSS 0, TIE 0.5, or None when neither side
    has a correct sample (the problem is left out of the rate and counted apart).

    Each side is its median-speed correct sample; a side with a correct sample beats one
    without; costs within `tie_band` of each other (relative to the faster) tie, since the
    timer cannot tell them apart."""
    cost_a, cost_b = median_speed_cost(a), median_speed_cost(b)
    if cost_a is None and cost_b is None:
        return NEITHER
    if cost_b is None:
        return WIN
    if cost_a is None:
        return LOSS
    faster = min(cost_a, cost_b)
    if cost_a == cost_b or abs(cost_a - cost_b) <= tie_band * faster:  # (both timed out: inf)
        return TIE
    return WIN if cost_a < cost_b else LOSS


@dataclass(frozen=True)
class WinRate:
    rate: float  # (wins + ties / 2) / compared problems
    low: float
    high: float
    wins: int
    losses: int
    ties: int
    neither: int  # problems where no side had a correct sample: left out
    compared: int

    def as_dict(self) -> dict:
        """As JSON carries it: no interval (fewer than two problems) is None, not NaN."""
        return {
            k: None if isinstance(v, float) and math.isnan(v) else v
            for k, v in self.__dict__.items()
        }


def win_rate(
    a: dict[str, list[SampleOutcome]],
    b: dict[str, list[SampleOutcome]],
    *,
    tie_band: float = 0.05,
    seed: int = 0,
) -> WinRate:
    """Win rate of evaluation a over b on the problems both evaluated."""
    outcomes = [duel(a[slug], b[slug], tie_band) for slug in sorted(set(a) & set(b))]
    scored = np.array([o for o in outcomes if o is not NEITHER], dtype=float)
    rate = float(scored.mean()) if len(scored) else math.nan
    return WinRate(
        rate,
        *bootstrap_interval(scored, seed=seed),
        wins=int((scored == WIN).sum()),
        losses=int((scored == LOSS).sum()),
        ties=int((scored == TIE).sum()),
        neither=sum(o is NEITHER for o in outcomes),
        compared=len(scored),
    )


# -- against the fastest human -----------------------------------------------------------------


def beats_fastest_human(samples: list[SampleOutcome], reference_costs: list[float]) -> bool:
    """The fastest correct sample takes less CPU time over the optimization tests than the
    fastest correct human reference (reference_costs: each reference's total, inf or nan
    for one that timed out or failed)."""
    best = min((s.cost_s for s in samples if s.correct and s.cost_s is not None), default=None)
    finite = [c for c in reference_costs if math.isfinite(c)]
    return best is not None and bool(finite) and best < min(finite)


# -- complexity ---------------------------------------------------------------------------------

MIN_NET_S = 2e-3
MIN_NET_SHARE = 0.25
"""A point is fitted only when its work beyond start-up is at least MIN_NET_S and at least
MIN_NET_SHARE of the start-up itself: below that, the start-up's own jitter (a millisecond or
two here) is a large part of what is left and tilts the slope."""


def scaling_exponent(
    sizes: list[float], costs: list[float], startup_s: float = 0.0
) -> float | None:
    """Least-squares slope of log(cost - startup) against log(size): about 1 for O(n),
    2 for O(n²). Points with too little work (see MIN_NET_SHARE), or not finite, are left
    out; None with fewer than two points at distinct sizes."""
    points = [
        (math.log(size), math.log(cost - startup_s))
        for size, cost in zip(sizes, costs, strict=True)
        if size > 0
        and math.isfinite(cost)
        and cost - startup_s >= max(MIN_NET_S, MIN_NET_SHARE * startup_s)
    ]
    if len({x for x, _ in points}) < 2:
        return None
    x, y = np.array(points).T
    slope = np.polyfit(x, y, 1)[0]
    return float(slope)


def complexity_improved(
    program_exponent: float | None, reference_exponents: list[float | None], margin: float
) -> bool | None:
    """The program scales better than the median human reference by more than `margin`;
    None when either exponent is unknown."""
    known = [e for e in reference_exponents if e is not None]
    if program_exponent is None or not known:
        return None
    return program_exponent < float(np.median(known)) - margin


# -- an evaluation's stored figures -----------------------------------------------------------


def _share(values: list[bool | None]) -> dict:
    known = [v for v in values if v is not None]
    return {
        "share": (sum(known) / len(known)) if known else None,
        "count": sum(known),
        "problems": len(known),
    }


def json_safe(value):
    """`value` with every NaN and infinity replaced by None: PostgreSQL's jsonb refuses them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def summarize(
    outcomes: dict[str, list[SampleOutcome]],
    reference_totals: dict[str, list[float]],
    taus: list[float],
    seed: int,
    complexity: dict[str, dict | None],
) -> dict:
    """The stored figures of a scored evaluation (docs/metrics.md): `outcomes` {problem:
    scored samples}, in the order the problems are reported; `reference_totals` {problem:
    each reference's CPU seconds over the optimization tests}; `complexity` {problem: the
    scaling exponents' report or None}. pτ's bootstrap is seeded by `seed`."""
    slugs = list(outcomes)
    estimates = p_tau([outcomes[slug] for slug in slugs], taus, seed=seed)
    beats = {slug: beats_fastest_human(outcomes[slug], reference_totals[slug]) for slug in slugs}
    per_problem = {}
    for slug in slugs:
        rows = outcomes[slug]
        per_problem[slug] = {
            "samples": len(rows),
            "correct": sum(r.correct for r in rows),
            "passes": {f"{tau:g}": sum(passes(r, tau) for r in rows) for tau in taus},
            "median_cost_s": median_speed_cost(rows),
            "beats_fastest_human": beats[slug],
            "complexity": complexity.get(slug),
        }
    return {
        "n_problems": len(slugs),
        "p_tau": {f"{tau:g}": e.as_dict() for tau, e in estimates.items()},
        "beats_fastest_human": _share([beats[s] for s in slugs]),
        "complexity_improved": _share([(complexity.get(s) or {}).get("improved") for s in slugs]),
        "fastest_human_complexity_improved": _share(
            [(complexity.get(s) or {}).get("fastest_human_improved") for s in slugs]
        ),
        "per_problem": per_problem,
    }
