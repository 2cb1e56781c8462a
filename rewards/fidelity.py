"""The paper's second diagnostic, the reward design space ranked at a measured timing noise:
its service (`check_*` validates, `do_rank_reward_designs` is the only writer of a
RewardRanking, which the Rewards page shows) and the entry point benchmarks/fidelity.py
imports. Split from rewards/services.py (configurations and simulations) to keep each
service module short; import after Django is set up."""

from __future__ import annotations

import json
import math
import time

from problems.models import Problem
from rewards import engine
from rewards.config_files import BUILTIN_CONFIGS, read_config_file
from rewards.design_ranking import rank_designs
from rewards.models import RewardConfig, RewardRanking
from rewards.runtimes import load_problem_runtimes
from rewards.services import MAX_NOISE_CV, SPLITS, check_problem_slugs

RANKING_DRAWS = 8
QUICK_RANKING_DRAWS = 3
QUICK_MAX_PROBLEMS = 100
"""A quick ranking (a minute or two on a large dataset, mostly loading the runtimes): 3 noise
draws on at most 100 problems spread evenly over the slugs, against 8 draws on every
problem."""


def check_noise_cv(noise_cv: object) -> float:
    """A timing noise level: a coefficient of variation in [0, MAX_NOISE_CV]."""
    if isinstance(noise_cv, bool) or not isinstance(noise_cv, int | float):
        raise ValueError(f"noise_cv: must be a number, not {noise_cv!r}")
    if not math.isfinite(noise_cv) or not 0 <= noise_cv <= MAX_NOISE_CV:
        raise ValueError(
            f"noise_cv: {noise_cv!r} must be between 0 and {MAX_NOISE_CV:g} (a coefficient of "
            "variation of CPU time: 0.2 for 20%; a rank jitter in points is not one)"
        )
    return float(noise_cv)


def ranked_configs() -> tuple[list[engine.RewardConfig], str]:
    """The stored configurations by name, else the built-in set; and which it was."""
    stored = [row.engine_config() for row in RewardConfig.objects.order_by("name")]
    if stored:
        return stored, "stored"
    return [config for config, _ in read_config_file(BUILTIN_CONFIGS)], "built-in"


def _quick_sample(mode: str, split: str) -> list[str]:
    """At most QUICK_MAX_PROBLEMS of the problems with stored runtimes, evenly spaced over
    their slugs (the same ones every time)."""
    with_runtimes = Problem.objects.filter(
        solutions__runtimes__mode=mode, solutions__runtimes__purpose__in=("build", "verify")
    )
    if split:
        with_runtimes = with_runtimes.filter(split=split)
    slugs = sorted(set(with_runtimes.values_list("slug", flat=True)))
    if len(slugs) <= QUICK_MAX_PROBLEMS:
        return slugs
    step = len(slugs) / QUICK_MAX_PROBLEMS
    return [slugs[int(i * step)] for i in range(QUICK_MAX_PROBLEMS)]


def do_rank_reward_designs(
    noise_cv: float,
    *,
    problem_slugs: list[str] | None = None,
    split: str = "",
    mode: str = "cpu",
    quick: bool = False,
    store: bool = True,
    group_size: int = 16,
    seed: int = 0,
    started_by: str = "",
) -> dict:
    """Rank the reward design space (the stored configurations, else the built-in set) at
    timing noise `noise_cv` on the stored reference runtimes, as the simulator's job loads
    them (rewards.design_ranking has the criterion). With `store`, the ranking is kept as a
    RewardRanking row, which the Rewards page shows. Returns its plain data (JSON-able) with
    `id` (None when not stored), the problems used and left out, and the wall time.

    1. check the arguments and load the configurations;
    2. choose the problems (quick: at most QUICK_MAX_PROBLEMS among those with stored
       runtimes) and load their runtimes (rewards.runtimes.load_problem_runtimes);
    3. rank (QUICK_RANKING_DRAWS or RANKING_DRAWS noise draws) and store.
    """
    started = time.monotonic()
    noise_cv = check_noise_cv(noise_cv)
    if split not in SPLITS:
        raise ValueError(f"split: {split!r} is not one of train, test (or empty: any)")
    requested = check_problem_slugs(problem_slugs)
    configs, configs_from = ranked_configs()
    slugs = requested or (_quick_sample(mode, split) if quick else None)
    loaded, skipped = load_problem_runtimes(slugs, mode, split) if slugs != [] else ([], [])
    if not loaded:
        raise ValueError(
            "problems: none has stored runtimes of 2 or more references; run a dataset build first"
        )
    ranking = rank_designs(
        configs,
        [p.runtimes for p in loaded],
        noise_cv=noise_cv,
        group_size=group_size,
        draws=QUICK_RANKING_DRAWS if quick else RANKING_DRAWS,
        seed=seed,
    )
    result = json.loads(json.dumps(ranking.as_dict()))
    used = [[p.slug, len(p.references), len(p.tests), p.test_kind] for p in loaded]
    result.update(
        id=None,
        created_at=None,
        quick=quick,
        mode=mode,
        split=split,
        configs_from=configs_from,
        problems_used=used,
        skipped=[list(s) for s in skipped],
        wall_seconds=time.monotonic() - started,
    )
    if store:
        row = RewardRanking.objects.create(
            started_by=started_by,
            noise_cv=noise_cv,
            group_size=group_size,
            draws=ranking.draws,
            seed=seed,
            quick=quick,
            mode=mode,
            split=split,
            configs_from=configs_from,
            configs=[c.as_dict() for c in configs],
            problem_slugs=requested,
            problems_used=used,
            skipped=result["skipped"],
            scores=result["scores"],
            winner=ranking.winner or "",
            winner_family=ranking.winner_family or "",
            why=ranking.why,
            criterion=ranking.criterion,
            wall_seconds=result["wall_seconds"],
        )
        result.update(id=row.pk, created_at=row.created_at.isoformat())
    return result


def rank_reward_designs(
    noise_cv: float,
    problems: list[str] | None = None,
    quick: bool = False,
    store: bool = True,
) -> dict:
    """The stored reward configurations (else the built-in set) ranked at timing noise
    `noise_cv` (a coefficient of variation of CPU time, 0.2 for 20%) on the stored reference
    runtimes of `problems` (slugs; None: every problem with them). `quick`: 3 noise draws on
    at most 100 problems instead of 8 draws on all. JSON-able: `scores` best first (each with
    its `score`, `monotonicity`, `middle_rise`, `gating` and more), `winner`,
    `winner_family`, `why`, `criterion`, `noise_cv`, `problems_used`, `id` of the stored
    RewardRanking (None without `store`). ValueError naming the argument at fault, or when no
    problem has stored runtimes (run a dataset build first)."""
    return do_rank_reward_designs(
        noise_cv, problem_slugs=problems, quick=quick, store=store, started_by="fidelity"
    )
