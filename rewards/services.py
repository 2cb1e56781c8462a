"""Reward configurations and simulator jobs: the only place that changes their state.

`check_*` validates (ValueError naming the field), `do_*` changes state.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import yaml
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from foundation.jobs import Progress, claim, failure_recorded, finish
from foundation.sending import enqueue
from foundation.tenancy import check_team_for_new_run
from problems.models import Problem
from rewards import engine
from rewards.config_files import BUILTIN_CONFIGS, read_config_file
from rewards.models import RewardConfig, Simulation
from rewards.runtimes import load_problem_runtimes
from rewards.simulator import RANK_AGAINST, simulate

MAX_NOISE_LEVELS = 8
MAX_NOISE_CV = 5.0
MAX_GROUP_SIZE = 1024
PROGRESS_EVERY_S = 0.5
SPLITS = ("", "train", "test")


# -- configurations ---------------------------------------------------------------------------


def check_config_form(name: str, fields_text: str) -> engine.RewardConfig:
    """A configuration from the page's name box and YAML/JSON fields box."""
    try:
        fields = yaml.safe_load(fields_text or "{}") or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"fields: not YAML or JSON ({str(exc).splitlines()[0]})") from None
    if not isinstance(fields, dict):
        raise ValueError("fields: must be a mapping of field: value")
    if "name" in fields:
        raise ValueError("fields: give the name in the name box, not among the fields")
    return engine.RewardConfig.from_dict({**fields, "name": name})


def do_save_config(
    config: engine.RewardConfig,
    *,
    description: str = "",
    user: str = "",
    actor=None,
    team=None,
) -> RewardConfig:
    """Create the named configuration (owned by `team`; None: shared, staff only) or update
    it. `actor`, the user of a page, may change only what `may_change` allows (None: an
    operator's command). A configuration a training run uses keeps its fields (the run must
    stay reproducible): changing them raises ValueError. PermissionDenied for a
    configuration the actor may not change; nothing is written."""
    config.check()
    fields = config.as_dict()
    name = fields.pop("name")
    with transaction.atomic():
        row = RewardConfig.objects.select_for_update().filter(name=name).first()
        if row is None:
            return RewardConfig.objects.create(
                name=name, fields=fields, description=description, created_by=user, team=team
            )
        check_may_change(actor, row)
        if row.fields != fields:
            used = row.runs.count()
            if used:
                raise ValueError(
                    f"name: {name!r} is used by {used} training run(s); "
                    "save the changed configuration under a new name"
                )
            row.fields = fields
        if description:
            row.description = description
        row.save()
    return row


def check_config_team(user, team_name: str):
    """The team a new configuration saved from a page belongs to: the named one, else the
    user's only team; staff who name none save a shared one (None)."""

    if not team_name and user.is_staff:
        return None
    return check_team_for_new_run(user, team_name or None)


def check_may_change(actor, row: RewardConfig) -> None:
    """PermissionDenied naming who may change `row`, unless `actor` (None: an operator's
    command) may."""
    if actor is None or row.may_change(actor):
        return
    owner = f"team {row.team.name!r}" if row.team_id else "staff (a built-in configuration)"
    raise PermissionDenied(
        f"name: {row.name!r} belongs to {owner}; only its members or staff may change it. "
        "Save your version under a new name."
    )


def do_load_configs(path: Path = BUILTIN_CONFIGS, *, user: str = "") -> list[RewardConfig]:
    """Store every configuration of a file, all or none."""
    read = read_config_file(path)
    with transaction.atomic():
        return [do_save_config(c, description=d, user=user) for c, d in read]


def do_set_recommended(
    config_id: int, recommended: bool, *, user: str = "", actor=None
) -> RewardConfig:
    """Mark the configuration recommended for training (or withdraw it); PermissionDenied
    when `actor` may not change it."""
    row = RewardConfig.objects.get(pk=config_id)
    check_may_change(actor, row)
    row.recommended = recommended
    row.recommended_by = user if recommended else ""
    row.recommended_at = timezone.now() if recommended else None
    row.save(update_fields=["recommended", "recommended_by", "recommended_at", "updated_at"])
    return row


# -- simulations ------------------------------------------------------------------------------


def parse_noise_levels(text: str) -> tuple[float, ...]:
    levels = []
    for part in str(text).replace(";", ",").split(","):
        if not part.strip():
            continue
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"noise_cv: {part.strip()!r} is not a number") from None
        if not math.isfinite(value) or not 0 <= value <= MAX_NOISE_CV:
            raise ValueError(f"noise_cv: {part.strip()} must be between 0 and {MAX_NOISE_CV:g}")
        levels.append(value)
    if not levels:
        raise ValueError("noise_cv: give at least one level, e.g. 0,0.05,0.2")
    if len(levels) > MAX_NOISE_LEVELS:
        raise ValueError(f"noise_cv: at most {MAX_NOISE_LEVELS} levels")
    return tuple(levels)


def check_simulation_request(
    *,
    config_names: list[str] | None = None,
    configs: list[engine.RewardConfig] | None = None,
    noise_cvs: str | tuple[float, ...] = "0,0.05,0.2",
    group_size: int | str = 16,
    problem_slugs: list[str] | None = None,
    split: str = "",
    rank_against: str = "references",
) -> dict:
    """The arguments of do_create_simulation, checked; configurations by stored name or
    given directly (a file)."""
    if configs is None:
        names = [n.strip() for n in config_names or [] if n.strip()]
        if not names:
            raise ValueError("configs: choose at least one configuration")
        stored = {row.name: row for row in RewardConfig.objects.filter(name__in=names)}
        unknown = [n for n in names if n not in stored]
        if unknown:
            raise ValueError(f"configs: no configuration {', '.join(unknown[:5])}")
        configs = [stored[n].engine_config() for n in names]
    if not configs:
        raise ValueError("configs: choose at least one configuration")
    levels = parse_noise_levels(noise_cvs) if isinstance(noise_cvs, str) else tuple(noise_cvs)
    try:
        size = int(group_size)
    except (TypeError, ValueError):
        raise ValueError(f"group_size: {group_size!r} is not a whole number") from None
    if not 1 <= size <= MAX_GROUP_SIZE:
        raise ValueError(f"group_size: must be between 1 and {MAX_GROUP_SIZE}")
    slugs = check_problem_slugs(problem_slugs)
    if rank_against not in RANK_AGAINST:
        raise ValueError(f"rank_against: {rank_against!r} is not one of {', '.join(RANK_AGAINST)}")
    if split not in SPLITS:
        raise ValueError(f"split: {split!r} is not one of train, test (or empty: any)")
    return {
        "configs": configs,
        "noise_cvs": levels,
        "group_size": size,
        "problem_slugs": slugs,
        "split": split,
        "rank_against": rank_against,
    }


def do_create_simulation(
    *,
    configs: list[engine.RewardConfig],
    noise_cvs: tuple[float, ...],
    group_size: int,
    problem_slugs: list[str],
    split: str = "",
    rank_against: str = "references",
    mode: str = "cpu",
    seed: int = 0,
    started_by: str = "",
    queue: bool = True,
) -> Simulation:
    """Record a simulation; with `queue`, the Celery task starts after the row is committed
    (without, the caller runs it with do_run_simulation)."""
    simulation = Simulation.objects.create(
        configs=[c.as_dict() for c in configs],
        noise_cvs=list(noise_cvs),
        group_size=group_size,
        problem_slugs=problem_slugs,
        split=split,
        rank_against=rank_against,
        mode=mode,
        seed=seed,
        started_by=started_by,
    )
    if queue:
        enqueue("rewards.run_simulation", simulation.id)
    return simulation


def do_run_simulation(
    simulation_id: int, on_update: Callable[[Simulation], None] | None = None, worker: str = ""
) -> Simulation:
    """Run a recorded simulation: load the stored runtimes, simulate every configuration at
    every noise level, store the results; progress goes on the row as it runs."""
    simulation = claim(Simulation, simulation_id, worker, stage="loading stored runtimes")
    if simulation is None:  # delivered again after it ended
        return Simulation.objects.get(pk=simulation_id)
    started = time.monotonic()
    with failure_recorded(Simulation.objects.filter(pk=simulation.pk)):
        loaded, skipped = load_problem_runtimes(
            simulation.problem_slugs, simulation.mode, simulation.split
        )
        if not loaded:
            raise ValueError(
                "problems: none has stored runtimes of 2 or more references; "
                "run a dataset build first"
            )
        configs = [engine.RewardConfig.from_dict(c) for c in simulation.configs]
        last = [0.0]
        tracker = Progress(simulation)

        def on_progress(done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - last[0] < PROGRESS_EVERY_S:
                return
            last[0] = now
            tracker.set(done, total, f"{done} of {total} (configuration, noise level) pairs")
            if on_update is not None:
                on_update(simulation)

        results = simulate(
            configs,
            [p.runtimes for p in loaded],
            noise_cvs=tuple(simulation.noise_cvs),
            group_size=simulation.group_size,
            seed=simulation.seed,
            rank_against=simulation.rank_against,
            on_progress=on_progress,
        )
    finish(
        simulation,
        stage="done",
        results=json.loads(json.dumps([r.as_dict() for r in results])),
        problems_used=[[p.slug, len(p.references), len(p.tests), p.test_kind] for p in loaded],
        skipped=[list(s) for s in skipped],
        wall_seconds=time.monotonic() - started,
    )
    simulation.refresh_from_db()
    return simulation


# -- ranking the design space -----------------------------------------------------------------


def check_problem_slugs(problem_slugs: list[str] | None) -> list[str]:
    """The slugs given, stripped; ValueError naming those that are no problem."""
    slugs = [s.strip() for s in problem_slugs or [] if s.strip()]
    known = set(Problem.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    unknown = [s for s in slugs if s not in known]
    if unknown:
        raise ValueError(f"problems: no problem {', '.join(unknown[:5])}")
    return slugs
