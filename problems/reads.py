"""Read-only views of the problem set for the pages (no state changes here)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from problems.models import (
    Calibration,
    DatasetBuild,
    Problem,
    ProblemBuild,
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
    return {"points": points, "cap_ms": None if cap is None else 1000 * cap}


def latest_problem_build(problem: Problem) -> ProblemBuild | None:
    return problem.builds.select_related("build").order_by("-build__created_at").first()


def build_row(build: DatasetBuild) -> dict:
    return {
        "id": build.pk,
        "created_at": build.created_at.isoformat(),
        "started_by": build.started_by,
        "status": build.status,
        "progress": build.progress,
        "stage": build.stage,
        "executions": build.executions,
        "wall_seconds": build.wall_seconds,
        "problems": len(build.problem_slugs) or None,
        "funnel": build.funnel,
        "error": build.error[:300],
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
