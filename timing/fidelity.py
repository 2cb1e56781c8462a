"""Timing fidelity diagnostics on the stored built problems: the noise-by-mode diagnostic
(timing/mode_noise.py) run on the problems built in the database, its result
stored, and the newest result as the Timing page charts it.

    from timing.fidelity import noise_by_mode     # after django.setup()
    result = noise_by_mode(None, quick=True, store=True)  # or manage.py noise_by_mode
"""

from __future__ import annotations

import socket
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
from django.utils import timezone

from problems.models import Problem, Split
from rewards.runtimes import LoadedProblem, loaded_problems
from scoring.problems import scoring_problem
from timing import services as timing_services
from timing.mode_noise import (
    FULL,
    PAPER_RANK_JITTER,
    QUICK,
    NoiseProblem,
    Progress,
    measure_mode_noise,
)
from timing.models import ModeNoiseCheck

QUICK_PROBLEMS = 1
"""Problems the quick variant re-scores when none are named: the cheapest to score, so it
ends in about 8 minutes on a 2-core host (one group of 7 references: ~25-35 s a timed
scoring, ~50-70 s a counted one)."""
FULL_PROBLEMS = 3
"""Problems the full variant re-scores when none are named (benchmarks/rank_jitter.py's
three)."""
FIGURES = ("p50", "p95", "max", "programs", "not_always_correct", "scorings", "seconds")
"""What the Timing page shows of each (mode, condition)."""
BUILD_HINT = (
    "manage.py build_dataset --problems big-sum sort-numbers count-inversions "
    "--set slow_target_s=0.3 --set repeats=2"
)


def stored_scoring_cost(item: LoadedProblem) -> float:
    """Seconds of one timing round of every reference on every optimization test (stored
    runtimes): what one scoring of the problem's references costs, up to a factor."""
    costs = item.runtimes.reference_costs
    return float(costs[np.isfinite(costs)].sum())


def check_noise_problems(problems: list[str] | None, quick: bool) -> list[LoadedProblem]:
    """The built problems to re-score: those named, or the cheapest of the built ones
    (QUICK_PROBLEMS or FULL_PROBLEMS), those the build kept (time-discriminative: in a
    split) first. ValueError("problems: ...") naming what is not built, with the command
    that builds it."""
    built = {item.slug: item for item in loaded_problems("")}
    if problems:
        missing = [slug for slug in problems if slug not in built]
        if missing:
            raise ValueError(
                f"problems: {', '.join(missing)}: no stored runtimes of two or more Python "
                f"references on optimization tests; build first: {BUILD_HINT}"
            )
        return [built[slug] for slug in dict.fromkeys(problems)]
    if not built:
        raise ValueError(f"problems: no problem is built yet; build some first: {BUILD_HINT}")
    kept = set(
        Problem.objects.filter(slug__in=built)
        .exclude(split=Split.UNASSIGNED)
        .values_list("slug", flat=True)
    )
    count = QUICK_PROBLEMS if quick else FULL_PROBLEMS
    return sorted(built.values(), key=lambda i: (i.slug not in kept, stored_scoring_cost(i)))[
        :count
    ]


def noise_by_mode(
    problems: list[str] | None,
    quick: bool,
    store: bool,
    *,
    scorings: int | None = None,
    on_progress: Progress | None = None,
) -> dict:
    """Rank jitter of built problems' own correct references per timing mode (wall, cpu,
    instructions), idle and beside busy processes this function starts and stops
    (mode_noise.measure_mode_noise), on `problems` (None: the cheapest built ones). `quick`:
    fewer problems and scorings (QUICK: about 8 minutes on 2 cores). `scorings`: of each group
    in the timed modes, instead of the variant's (2 is the paper's "between repeats"; each
    costs 65-100 s per problem and mode on the demo's problems here). With `store`, the
    result is kept (ModeNoiseCheck) and the Timing page charts it.

    Returns JSON-able data: ModeNoise.as_dict() (`results[mode][condition]` with p50, p95,
    max in percentile points, programs, problems, scorings, seconds; `paper`: the paper's
    figures) and `quick`, `hostname`, `measured_at`, `id` (the stored row's; None unless
    stored). Raises ValueError("problems: ..." or "scorings: ...") before measuring when a
    problem is not built or `scorings` is below 2."""
    settings = QUICK if quick else FULL
    if scorings is not None:
        if scorings < 2:
            raise ValueError("scorings: at least 2 (rank jitter is a range over scorings)")
        settings = replace(settings, remeasure=scorings)
    chosen = check_noise_problems(problems, quick)
    with tempfile.TemporaryDirectory(prefix="codeopt-noise-by-mode-") as folder:
        workdir = Path(folder)
        workdir.chmod(0o711)  # the sandbox user passes through to its boxes
        noise_problems = []
        for item in chosen:
            _, scoring = scoring_problem(item, workdir)
            if not scoring.reference_programs:
                raise ValueError(f"problems: {item.slug}: a reference's code is missing")
            noise_problems.append(
                NoiseProblem(item.slug, dict(scoring.reference_programs), scoring)
            )
        found = measure_mode_noise(
            noise_problems, settings, workdir=workdir, on_progress=on_progress
        )
    hostname = socket.gethostname()
    result = {**found.as_dict(), "quick": quick, "hostname": hostname}
    row = (
        timing_services.do_record_mode_noise(result, hostname=hostname, quick=quick)
        if store
        else None
    )
    measured_at = row.measured_at if row is not None else timezone.now()
    return {**result, "measured_at": measured_at.isoformat(), "id": row.pk if row else None}


def mode_noise_chart() -> dict:
    """The newest stored diagnostic as the Timing page's chart takes it: per mode and
    condition the p95 (and p50, max) rank jitter, with the paper's figures; `result` None
    when none was stored (the page then says how to produce one)."""
    row = ModeNoiseCheck.objects.first()
    base = {
        "paper": [
            {"label": label, "points": points} for label, points in PAPER_RANK_JITTER.items()
        ],
        "command": "manage.py noise_by_mode --quick",
    }
    if row is None:
        return {**base, "result": None}
    result = row.result
    return {
        **base,
        "result": {
            "id": row.pk,
            "measured_at": row.measured_at.isoformat(),
            "hostname": row.hostname,
            "quick": row.quick,
            "seconds": row.seconds,
            "problems": result["problems"],
            "programs": result["programs"],
            "load_processes": result["load_processes"],
            "modes": result["modes"],
            "conditions": result["conditions"],
            "rows": [
                {"mode": mode, "condition": condition, **{key: cell[key] for key in FIGURES}}
                for mode, by_condition in result["results"].items()
                for condition, cell in by_condition.items()
            ],
        },
    }
