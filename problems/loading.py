"""Built problems as other domains read them: how a problem is posed (its function task and
harness), its slowest reference (a baseline for prompts), how many problems each split has.
The stored reference runtimes as the engines take them: rewards/runtimes.py; a problem as the
scorer takes it: scoring/problems.py."""

from __future__ import annotations

import numpy as np
from django.db.models import Count, Q

from problems.function_task import FunctionTask
from problems.models import Problem, ReferenceRuntime, ReferenceSolution, Verdict


def function_task(problem: Problem) -> FunctionTask | None:
    """How `problem` is posed to models as one function; None: as its statement."""
    return FunctionTask.from_dict(problem.function_task, f"{problem.slug}: function_task")


def harnesses(slugs) -> dict[str, str]:
    """{slug: harness} of the problems among `slugs` posed as a function: what follows a
    completion's function in the program that is scored."""
    rows = Problem.objects.filter(slug__in=list(slugs)).exclude(function_task={})
    return {p.slug: function_task(p).harness for p in rows}


def slowest_reference(problem, item) -> str | None:
    """The code of the accepted Python reference with the largest mean stored time."""
    costs = np.where(np.isfinite(item.runtimes.reference_costs), item.runtimes.reference_costs, 0)
    means = dict(zip(item.references, costs.mean(axis=1), strict=True))
    accepted = ReferenceSolution.objects.filter(
        problem=problem, language="python", verdict_label="accepted", name__in=list(means)
    )
    slowest = max(accepted, key=lambda s: means[s.name], default=None)
    return slowest.code if slowest else None


def problem_id(slug: str) -> int:
    return Problem.objects.only("pk").get(slug=slug).pk


def problems_per_split(language: str = "python") -> dict[str, int]:
    """{"train", "test", "all": how many problems `loaded_problems` gives for it}, counted in
    one query instead of loading every runtime: built problems (stored cpu runtimes of the
    build, a verdict with a cost or a time-out) with at least two correct references in
    `language` measured so, the criteria of load_problem_runtimes. "all" counts every
    split, unassigned included."""
    usable = Q(verdict="TIME_LIMIT") | Q(verdict="OK", cost__isnull=False)
    rows = (
        ReferenceRuntime.objects.filter(
            usable,
            mode="cpu",
            purpose="build",
            solution__language=language,
            solution__verdict_label__in=[Verdict.ACCEPTED, Verdict.TOO_SLOW],
        )
        .values("test__problem_id", "test__problem__split")
        .annotate(references=Count("solution", distinct=True))
        .filter(references__gte=2)
    )
    counts = {"train": 0, "test": 0, "all": 0}
    for row in rows:
        split = row["test__problem__split"]
        if split in counts:
            counts[split] += 1
        counts["all"] += 1
    return counts
