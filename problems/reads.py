"""Read-only views of the problem set for the pages (no state changes here)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from foundation.jobs import JobStatus, job_table_row
from foundation.queueing import QueuedJob, queued
from lm.base_models import prompt_style
from lm.prompts import chat_messages, make_prompt
from problems.exports import PromptRow
from problems.generators import SOURCES
from problems.loading import function_task
from problems.models import (
    Calibration,
    DatasetBuild,
    InputGenerator,
    Problem,
    ProblemBuild,
    ProblemTest,
    ReferenceRuntime,
    Split,
)
from problems.pipeline import PipelineConfig


@dataclass
class ProblemFilters:
    split: str = ""
    source: str = ""
    tag: str = ""
    min_ratio: float | None = None
    query: str = ""

    @classmethod
    def from_query(cls, params) -> tuple[ProblemFilters, str | None]:
        """Filters from GET parameters, and an error naming a bad one."""
        filters = cls(
            split=params.get("split", ""),
            source=params.get("source", ""),
            tag=params.get("tag", ""),
            query=params.get("q", "").strip(),
        )
        if filters.split and filters.split not in Split.values:
            return cls(), f"split: {filters.split!r} is not one of {', '.join(Split.values)}"
        raw = params.get("min_ratio", "").strip()
        if raw:
            try:
                filters.min_ratio = float(raw)
            except ValueError:
                return cls(), f"min_ratio: {raw!r} is not a number"
        return filters, None


def problems(filters: ProblemFilters) -> QuerySet[Problem]:
    rows = Problem.objects.annotate(
        sample_tests=Count("tests", filter=Q(tests__kind="sample"), distinct=True),
        correctness_tests=Count("tests", filter=Q(tests__kind="correctness"), distinct=True),
        optimization_tests=Count("tests", filter=Q(tests__kind="optimization"), distinct=True),
        references=Count("solutions", distinct=True),
    ).order_by("slug")
    if filters.split:
        rows = rows.filter(split=filters.split)
    if filters.source:
        rows = rows.filter(source=filters.source)
    if filters.query:
        rows = rows.filter(Q(slug__icontains=filters.query) | Q(title__icontains=filters.query))
    if filters.min_ratio is not None:
        rows = rows.filter(discrimination__gte=filters.min_ratio)
    if filters.tag:
        # JSON containment is not on SQLite: filter the (small) list here
        ids = [pk for pk, tags in rows.values_list("pk", "tags") if filters.tag in (tags or [])]
        rows = rows.filter(pk__in=ids)
    return rows


def filter_choices() -> dict:
    every = Problem.objects.values_list("tags", flat=True)
    tags = sorted({tag for tags in every for tag in tags or []})
    sources = sorted(set(Problem.objects.values_list("source", flat=True)) - {""})
    return {"splits": Split.values, "tags": tags, "sources": sources}


def runtime_points(problem: Problem) -> dict:
    """The stored reference runtimes of the problem's tests, for the distribution chart:
    one point per (reference, test), with its label and verdict; timed-out runs carry the
    cap they were stopped at."""
    rows = (
        ReferenceRuntime.objects.filter(test__problem=problem, purpose="build")
        .select_related("solution", "test")
        .order_by("test__name", "solution__name")
    )
    latest = problem.builds.select_related("build").order_by("-build__created_at").first()
    cap = None
    if latest is not None:
        config = PipelineConfig.from_dict(latest.build.config)
        cap = config.runtime_cap_factor * config.slow_target_s
    points = [
        {
            "test": row.test.name,
            "solution": row.solution.name,
            "language": row.solution.language,
            "label": row.solution.verdict_label,
            "verdict": row.verdict,
            "cost_ms": None if row.cost is None else 1000 * row.cost,
            "machine": row.machine,
            "measured_at": row.measured_at.isoformat(),
        }
        for row in rows
    ]
    empty = "no stored reference runtimes: run a dataset build"
    if latest is not None and not points:
        empty = (
            f"build #{latest.build_id} made no optimization tests: it stopped at stage "
            f"{latest.stage_reached + 1} (see the construction report)"
        )
    return {"points": points, "cap_ms": None if cap is None else 1000 * cap, "empty": empty}


PROVENANCE_FIRST = ("model", "prompt_version", "layout")  # shown first, when present
PROVENANCE_CHARS = 300  # a longer value (a model's reply) is cut on the page


def _provenance_items(provenance: dict) -> list[tuple[str, str]]:
    keys = [k for k in PROVENANCE_FIRST if k in provenance]
    keys += sorted(k for k in provenance if k not in PROVENANCE_FIRST)
    items = []
    for key in keys:
        value = provenance[key]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(text) > PROVENANCE_CHARS:
            text = text[:PROVENANCE_CHARS] + f"… ({len(text)} characters)"
        items.append((key, text))
    return items


def generator_rows(problem: Problem) -> list[dict]:
    """The problem's generators for its page: source, verdict, every check of the last
    validation (pass / fail / not run, with its detail), the provenance as (key, text) and
    the sample input (the template escapes it)."""
    order = {source: index for index, source in enumerate(SOURCES)}
    rows = sorted(
        InputGenerator.objects.filter(problem=problem).annotate(used=Count("tests")),
        key=lambda g: (order.get(g.source, len(order)), g.name),
    )
    return [
        {
            "name": g.name,
            "source": g.source,
            "valid": g.valid,
            "reasons": (g.report or {}).get("reasons", []),
            "checks": (g.report or {}).get("checks", []),
            "provenance": _provenance_items(g.provenance or {}),
            "sample_input": g.sample_input,
            "tests": g.used,
        }
        for g in rows
    ]


def probe_curves(problem: Problem) -> list[dict]:
    """Per generator with a measured growth check: the CPU time of each correct reference
    against SIZE (its validation's points: the validation SIZE, the largest SIZE and every
    growth probe past it), the target it grew toward and why it stopped."""
    curves = []
    for g in InputGenerator.objects.filter(problem=problem).order_by("source", "name"):
        check = next(
            (c for c in (g.report or {}).get("checks", []) if c.get("name") == "grows with SIZE"),
            None,
        )
        data = (check or {}).get("data") or {}
        if not data.get("curve"):
            continue
        curves.append(
            {
                "generator": g.name,
                "source": g.source,
                "target_s": data.get("target_s"),
                "reach": (g.report or {}).get("reach"),
                "untimeable": bool((g.report or {}).get("untimeable")),
                "why": (data.get("growth") or {}).get("why", ""),
                "points": data["curve"],
            }
        )
    return curves


def generator_funnel_rows(build: DatasetBuild | None) -> dict:
    """The build's generator funnel as a table: a row per source (proposed, valid, problems
    per stage because of it, and because of it alone), with the stage names as columns."""
    funnel = (build.generator_funnel if build else None) or {}
    sources = funnel.get("sources", {})
    stages = funnel.get("stages", [])
    rows = [
        {
            "source": source,
            "proposed": row["proposed"],
            "valid": row["valid"],
            "problems_proposed": row["problems_proposed"],
            "problems_valid": row["problems_valid"],
            "stages": [(row["stages"][s], row["alone"][s]) for s in stages],
        }
        for source, row in sources.items()
    ]
    return {"stages": stages, "rows": rows}


def latest_problem_build(problem: Problem) -> ProblemBuild | None:
    return problem.builds.select_related("build").order_by("-build__created_at").first()


def build_row(build: DatasetBuild, beats: dict | None = None) -> dict:
    """`beats`: jobs.heartbeats(), read once for a table (a dead worker's build: "lost")."""
    return {
        **job_table_row(build, beats),
        "started_by": build.started_by,
        "executions": build.executions,
        "wall_seconds": build.wall_seconds,
        "problems": len(build.problem_slugs) or None,
        "funnel": build.funnel,
        "generator_funnel": build.generator_funnel,
    }


def calibration_row(calibration: Calibration) -> dict:
    return {
        "id": calibration.pk,
        "created_at": calibration.created_at.isoformat(),
        "mode": calibration.mode,
        "machine": calibration.machine,
        "slope": calibration.slope,
        "intercept": calibration.intercept,
        "spearman_before": calibration.spearman_before,
        "spearman_after": calibration.spearman_after,
        "pairs": calibration.pairs,
        "problems": calibration.problem_slugs,
        "points": calibration.points,
    }


def built_problems(split: str = "", dataset: str = "") -> QuerySet[Problem]:
    """Problems a trainer can be scored on: kept by a dataset build (optimization tests and
    stored reference runtimes), of `split` and of `dataset` (the source's name, or its
    prefix before "/": `code_contests`) when given; with flags for what is stored."""
    rows = Problem.objects.filter(builds__kept=True)
    if split:
        rows = rows.filter(split=split)
    if dataset:
        rows = rows.filter(Q(source=dataset) | Q(source__startswith=dataset + "/"))
    optimization = ProblemTest.objects.filter(problem=OuterRef("pk"), kind="optimization")
    references = ReferenceRuntime.objects.filter(test__problem=OuterRef("pk"), purpose="build")
    return (
        rows.distinct()
        .annotate(has_optimization_tests=Exists(optimization), has_references=Exists(references))
        .order_by("slug")
    )


def prompt_rows(problems, model: str = "tiny") -> list[PromptRow]:
    """The export's rows (problems.exports.PromptRow): each problem prompted as our trainer
    prompts `model` (its chat format for a named instruct model; no baseline program)."""
    style = prompt_style(model)
    return [
        PromptRow(
            p.slug,
            make_prompt(p.statement or p.title, style=style, function=function_task(p)),
            p.split,
            chat_messages(p.statement or p.title, style=style, function=function_task(p)),
        )
        for p in problems
    ]


def queued_dataset_builds(user, teams) -> list[QueuedJob]:
    """Dataset builds queued or running (queue `timing`; foundation.queueing): shared by
    every team, so always named."""
    active = DatasetBuild.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
    return [queued(f"dataset build #{build.pk}", build, True) for build in active]
