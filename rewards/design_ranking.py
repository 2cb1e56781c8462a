"""Rank the reward design space at a measured timing noise (paper, section 3, the offline
simulator's verdict turned into one ordering). Plain Python + numpy, no Django.

Every configuration is simulated (rewards.simulator) on the same problems at the noise
level given (a coefficient of variation of CPU time, as measured on the Timing page), over
`draws` independent noise draws, and scored:

    score = monotonicity × middle rise × gating, each in [0, 1], averaged over the draws

1. monotonicity: the simulator's concordance, Goodman and Kruskal's gamma between a
   program's quality and the reward it gets when measured at that noise, over pairs of
   programs of the same problem: of the pairs whose rewards differ, the share where the
   better program gets more, minus the share where it gets less; 0 when negative or when no
   pair's rewards differ (a flat reward). The paper: sweep quality from bad to good and
   "check that the reward rises steadily with quality"; flat curves are discarded. Noise
   lowers it: a program near the bar lands on either side of it. Spearman's rho (also
   reported) is not used: for a two-valued reward it depends on how many programs pass the
   bar (it peaks at half), so noise that lets more programs over a strict bar raises it.
2. middle rise: how far the mean reward climbs between quality 0.15 and 0.85 (the centres
   of the 2nd and 9th deciles, interpolated on the simulator's decile curve), as a share of
   the configuration's whole reward span, from a wrong answer's reward to the best reward
   (`REWARD_SPANS`). 0 for a curve that moves only in the first or last decile (the paper's
   "only move at the extremes: no signal most of the time"); below 1 for a reward that keeps
   part of its span for correctness alone (a weighted sum, graded negatives, alternating
   objectives: the "programs get barely faster" of adding time to a correctness reward),
   where the collapsed binary spends all of it on "correct AND fast". Noise lowers it too:
   the step smears, so good programs lose reward and poor ones gain some.
3. gating: 1 - the share of wrong answers paid for their speed (the simulator's wrong paid
   share). The paper: correctness gating, "no speed reward without correctness"; a reward
   that pays a fast wrong answer teaches the policy to be fast and wrong.

A product, not a sum: each component is a necessary condition. A reward that rises steadily
but pays wrong answers, or one that separates programs only at the very top, is not
rescued by excelling at the other two. Ties (the same score to 1e-9: configurations that
differ only in fields the simulator does not model, such as timing repeats) keep name
order; the winner is the first configuration with a positive score.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from rewards.engine import ProblemRuntimes, RewardConfig
from rewards.simulator import DECILES, ConfigResult, simulate

MIDDLE_QUALITIES = (0.15, 0.85)
"""Where the middle rise is read: the centres of the 2nd and 9th quality deciles, inside the
first and last decile the simulator's "extremes only" flag looks at."""
TIE_TOLERANCE = 1e-9
CRITERION = (
    "score = monotonicity × middle rise × gating, each in [0, 1] and averaged over noise "
    "draws at the given CV: monotonicity = concordance between quality and reward (gamma "
    "over pairs of programs of a problem whose rewards differ; 0 if negative or flat); "
    "middle rise = the rise of the mean reward from quality 0.15 to "
    "0.85 as a share of the reward's span from a wrong answer to the best; gating = 1 - the "
    "share of wrong answers paid for their speed"
)

REWARD_SPANS: dict[str, Callable[[RewardConfig], tuple[float, float]]] = {
    "binary": lambda config: (-1.0, 1.0),
    "graded": lambda config: (-1.0, 1.0),
    "alternating": lambda config: (-1.0, 1.0),  # the mean of two +-1 steps
    "weighted": lambda config: (0.0, config.correctness_weight + config.speed_weight),
}
"""(lowest, highest) reward a combination can give: a wrong answer (timed out) to a correct
answer faster than every reference."""

UNSIMULATED_FIELDS = frozenset(
    {"name", "noise_band_factor", "reference_timing", "timing_repeats", "timing_settle"}
)
"""RewardConfig fields the simulator does not model (it injects the noise itself and ranks
against the stored runtimes): configurations differing only in these get the same rewards."""

COMPONENTS = ("monotonicity", "middle_rise", "gating")
REASONS = {
    "monotonicity": "how steadily the reward rises with quality",
    "middle_rise": "the share of the span spent on speed in the middle of the quality range",
    "gating": "1 - the share of wrong answers paid for speed",
}
COMPONENT_LABELS = {key: key.replace("_", " ") for key in COMPONENTS}


def design_family(config: RewardConfig) -> str:
    """The paper's name for the way the configuration combines correctness and speed."""
    if config.combination == "binary":
        limited = config.time_limit_s is not None or config.limit_percentile is not None
        if config.speed_bar is None:
            return "collapsed binary (limit)" if limited else "correctness only"
        return "collapsed binary"
    return {
        "graded": "graded negatives",
        "weighted": "weighted sum",
        "alternating": "alternating objectives",
    }[config.combination]


@dataclass
class DesignScore:
    name: str
    family: str
    rank: int
    """1 + the number of configurations with a higher score (ties share a rank)."""
    score: float
    score_spread: float
    """Standard deviation of the score over the noise draws."""
    monotonicity: float
    """Component 1 (module notes): the concordance at the noise level, 0 if negative."""
    middle_rise: float
    """Component 2: the mean reward's rise from quality 0.15 to 0.85 over the span."""
    gating: float
    """Component 3: 1 - wrong_paid_share."""
    spearman: float | None
    """Mean Spearman rho at the noise level (None: constant reward on every draw)."""
    spearman_noiseless: float | None
    concordance_noiseless: float | None
    all_negative_rate: float
    """Share of groups of G whose rewards are all the same negative value (information)."""
    wrong_paid_share: float
    """Share of wrong answers whose reward beats a timed-out wrong answer's."""
    curve: list[float | None]
    """Mean reward per quality decile at the noise level, averaged over the draws."""
    flags: list[str] = field(default_factory=list)
    """The simulator's flags on the noiseless level ("flat", "extremes only")."""
    ties_with: list[str] = field(default_factory=list)
    same_rewards_as: list[str] = field(default_factory=list)
    """Configurations that differ from this one only in UNSIMULATED_FIELDS."""


@dataclass
class DesignRanking:
    noise_cv: float
    group_size: int
    draws: int
    seed: int
    problems: int
    scores: list[DesignScore]
    """Best first."""
    winner: str | None
    winner_family: str | None
    why: str
    criterion: str = CRITERION

    def as_dict(self) -> dict:
        return asdict(self)


def middle_rise(curve: list[float | None], span: tuple[float, float]) -> float:
    """The rise of the decile curve from quality 0.15 to 0.85 (linear interpolation between
    the deciles that have programs, flat beyond the outermost) over the span, in [0, 1]."""
    points = [((b + 0.5) / DECILES, v) for b, v in enumerate(curve) if v is not None]
    low, high = span
    if not points or high <= low:
        return 0.0
    qualities, values = zip(*points, strict=True)
    start, end = (float(np.interp(q, qualities, values)) for q in MIDDLE_QUALITIES)
    return min(1.0, max(0.0, (end - start) / (high - low)))


def rank_designs(
    configs: list[RewardConfig],
    problems: list[ProblemRuntimes],
    *,
    noise_cv: float,
    group_size: int = 16,
    draws: int = 8,
    seed: int = 0,
) -> DesignRanking:
    """Every configuration scored at timing noise `noise_cv` (module notes) and ranked.

    1. simulate once without noise (the simulator's flags, the noiseless figures), then `draws`
       times at `noise_cv` with seeds seed, seed + 1, ... (one draw when noise_cv is 0:
       every draw would be the same);
    2. per draw, the three components from each configuration's result; their means over
       the draws, and the score's spread;
    3. order by score (names break ties), rank, and write the why text from the numbers.
    """
    if not configs:
        raise ValueError("configs: give at least one configuration")
    if not isinstance(noise_cv, int | float) or not math.isfinite(noise_cv) or noise_cv < 0:
        raise ValueError(
            f"noise_cv: must be a number >= 0 (a coefficient of variation), not {noise_cv!r}"
        )
    if draws < 1:
        raise ValueError("draws: must be at least 1")
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise ValueError("configs: two configurations share a name")
    draws = 1 if noise_cv == 0 else draws
    noiseless = simulate(configs, problems, noise_cvs=(0.0,), group_size=group_size, seed=seed)
    noisy_draws = [
        simulate(configs, problems, noise_cvs=(noise_cv,), group_size=group_size, seed=seed + d)
        for d in range(draws)
    ]
    scores = [
        _score(config, base, [results[index] for results in noisy_draws])
        for index, (config, base) in enumerate(zip(configs, noiseless, strict=True))
    ]
    scores.sort(key=lambda s: (-round(s.score, 9), s.name))
    simulated = {c.name: _simulated_fields(c) for c in configs}
    for score in scores:
        score.rank = 1 + sum(other.score > score.score + TIE_TOLERANCE for other in scores)
        score.ties_with = [
            other.name for other in scores if other is not score and _tied(other, score)
        ]
        score.same_rewards_as = [
            name for name in score.ties_with if simulated[name] == simulated[score.name]
        ]
    winner = scores[0] if scores[0].score > 0 else None
    ranking = DesignRanking(
        noise_cv=float(noise_cv),
        group_size=group_size,
        draws=draws,
        seed=seed,
        problems=len(problems),
        scores=scores,
        winner=winner.name if winner else None,
        winner_family=winner.family if winner else None,
        why="",
    )
    ranking.why = why_text(ranking)
    return ranking


def _score(config: RewardConfig, noiseless: ConfigResult, draws: list[ConfigResult]) -> DesignScore:
    span = REWARD_SPANS[config.combination](config)
    levels = [result.by_noise[0] for result in draws]
    components = np.array(
        [
            [
                max(0.0, level.concordance or 0.0),
                middle_rise(level.curve, span),
                1.0 - level.wrong_paid_share,
            ]
            for level in levels
        ]
    )  # (draws, 3)
    means = components.mean(axis=0)
    rhos = [level.monotonicity for level in levels if level.monotonicity is not None]
    curves = np.array([[np.nan if v is None else v for v in level.curve] for level in levels])
    filled = np.isfinite(curves).sum(axis=0)  # (DECILES,) draws with programs there
    with np.errstate(invalid="ignore", divide="ignore"):
        curve = np.where(filled > 0, np.nansum(curves, axis=0) / filled, np.nan)
    return DesignScore(
        name=config.name,
        family=design_family(config),
        rank=0,
        score=float(np.prod(means)),
        score_spread=float(np.std(np.prod(components, axis=1))),
        monotonicity=float(means[0]),
        middle_rise=float(means[1]),
        gating=float(means[2]),
        spearman=float(np.mean(rhos)) if rhos else None,
        spearman_noiseless=noiseless.by_noise[0].monotonicity,
        concordance_noiseless=noiseless.by_noise[0].concordance,
        all_negative_rate=float(np.mean([level.all_negative_rate for level in levels])),
        wrong_paid_share=float(np.mean([level.wrong_paid_share for level in levels])),
        curve=[None if math.isnan(v) else float(v) for v in curve],
        flags=list(noiseless.flags),
    )


def _simulated_fields(config: RewardConfig) -> dict:
    return {k: v for k, v in config.as_dict().items() if k not in UNSIMULATED_FIELDS}


def _tied(a: DesignScore, b: DesignScore) -> bool:
    return all(
        abs(getattr(a, key) - getattr(b, key)) <= TIE_TOLERANCE for key in ("score", *COMPONENTS)
    )


def _limiting(score: DesignScore) -> str:
    """The component that holds the score down most."""
    return min(COMPONENTS, key=lambda key: getattr(score, key))


def _weakest_against(score: DesignScore, best: DesignScore) -> str:
    """The component of `score` furthest below `best`'s, as a ratio."""
    return min(
        COMPONENTS, key=lambda key: getattr(score, key) / max(getattr(best, key), TIE_TOLERANCE)
    )


def why_text(ranking: DesignRanking) -> str:
    """One paragraph saying, from the numbers, why the winner wins and what holds each other
    configuration back."""
    scores = ranking.scores
    setting = (
        f"at timing noise CV {ranking.noise_cv:.3g} ({ranking.draws} noise "
        f"draw{'s' if ranking.draws != 1 else ''} on {ranking.problems} "
        f"problem{'s' if ranking.problems != 1 else ''})"
    )
    if ranking.winner is None:
        held = "; ".join(
            f"{s.name}: {COMPONENT_LABELS[_limiting(s)]} {getattr(s, _limiting(s)):.2f}"
            for s in scores
        )
        return (
            f"No configuration earns a positive score {setting}: each is flat, moves only at "
            f"the extremes of the quality range or pays wrong answers for speed ({held}). "
            "Rank on more time-discriminative problems, or measure at lower noise."
        )
    best = scores[0]
    gamma0 = best.concordance_noiseless
    without = "n/a" if gamma0 is None else f"{gamma0:.2f}"
    paid = "no" if best.wrong_paid_share == 0 else f"{best.wrong_paid_share:.0%} of"
    sentences = [
        f"{setting[0].upper()}{setting[1:]}, {best.name} ({best.family}) ranks first with "
        f"score {best.score:.2f} = monotonicity {best.monotonicity:.2f} × middle rise "
        f"{best.middle_rise:.2f} × gating {best.gating:.2f}: its reward rises with solution "
        f"quality (concordance {best.monotonicity:.2f} at this noise, {without} without), climbs "
        f"{best.middle_rise:.0%} of its span across the middle of the quality range, and "
        f"pays {paid} wrong answers for their speed."
    ]
    if best.ties_with:
        twins = [n for n in best.ties_with if n in best.same_rewards_as]
        level = [n for n in best.ties_with if n not in best.same_rewards_as]
        ties = [
            f"{name} scores the same: it differs only in fields the simulator does not model "
            "(how the scorer times programs)"
            for name in twins
        ]
        ties += [
            f"{name} scores the same on these problems (first by name: {best.name})"
            for name in level
        ]
        sentences.append("; ".join(ties) + ".")
    others = [s for s in scores if s is not best and s.name not in best.ties_with]
    if others:
        runner = others[0]
        weakest = _weakest_against(runner, best)
        sentence = (
            f"The runner-up, {runner.name} ({runner.family}), scores {runner.score:.2f}, "
            f"held back most by {COMPONENT_LABELS[weakest]} ({getattr(runner, weakest):.2f} "
            f"against {getattr(best, weakest):.2f})"
        )
        margin, spread = best.score - runner.score, max(best.score_spread, runner.score_spread)
        if margin <= 2 * spread:
            sentence += (
                f"; the margin ({margin:.2f}) is within twice the spread between noise draws "
                f"(±{spread:.2f}), so the two are a statistical tie at this noise"
            )
        sentences.append(sentence + ".")
    groups: dict[str, list[str]] = {}
    for score in others[1:]:
        key = _weakest_against(score, best)
        groups.setdefault(key, []).append(f"{score.name} {getattr(score, key):.2f}")
    if groups:
        sentences.append(
            "The rest, each by the component furthest below the winner's: "
            + "; ".join(
                f"{COMPONENT_LABELS[key]} ({REASONS[key]}; winner {getattr(best, key):.2f}): "
                + ", ".join(items)
                for key, items in groups.items()
            )
            + "."
        )
    return " ".join(sentences)
