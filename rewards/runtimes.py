"""Built problems' stored reference runtimes as the reward engine, the simulator and the ranking
take them (engine.ProblemRuntimes): the optimization-test costs of a built problem, else its
single runs on its own tests, calibrated to today's scale."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from problems.models import Problem
from problems.services import corrected_reference_costs
from rewards import engine


@dataclass
class LoadedProblem:
    slug: str
    runtimes: engine.ProblemRuntimes
    references: list[str]
    tests: list[str]
    test_ids: list[int]
    test_kind: str  # "optimization", or "own" (a problem without generated tests)


def load_problem_runtimes(
    slugs: list[str] | None = None,
    mode: str = "cpu",
    split: str = "",
    language: str | None = None,
) -> tuple[list[LoadedProblem], list[tuple[str, str]]]:
    """Simulator input from the stored reference runtimes of the problems named (all when
    none; only those of `split` when given): the optimization-test runtimes of a built
    problem, else the single runs on the problem's own tests (an imported problem without
    generators). Costs are calibrated to today's scale
    (problems.services.corrected_reference_costs). Returns the problems and the
    (slug, reason) of those left out. With `language`, only references in it (a program is
    ranked among references in its own language)."""
    problems = Problem.objects.order_by("slug")
    if slugs:
        problems = problems.filter(slug__in=slugs)
    if split:
        problems = problems.filter(split=split)
    by_problem: dict[int, dict[str, list]] = {}
    for row, cost in corrected_reference_costs(problems, mode, ("build", "verify")):
        if language is not None and row.solution.language != language:
            continue
        by_problem.setdefault(row.test.problem_id, {}).setdefault(row.purpose, []).append(
            (row, cost)
        )
    loaded, skipped = [], []
    for problem in problems.only("pk", "slug"):
        purposes = by_problem.get(problem.pk, {})
        kind, rows = (
            ("optimization", purposes["build"])
            if "build" in purposes
            else ("own", purposes.get("verify", []))
        )
        references = sorted({row.solution.name for row, _ in rows})
        tests = {row.test.name: row.test for row, _ in rows}
        if not references:
            skipped.append((problem.slug, "no stored runtimes (not built yet)"))
            continue
        if len(references) < 2:
            skipped.append((problem.slug, "1 reference with stored runtimes; 2 needed"))
            continue
        names = sorted(tests)
        costs = np.full((len(references), len(names)), np.nan)
        ref_index = {name: i for i, name in enumerate(references)}
        test_index = {name: i for i, name in enumerate(names)}
        for row, cost in rows:
            costs[ref_index[row.solution.name], test_index[row.test.name]] = cost
        runtimes = engine.ProblemRuntimes(
            costs,
            np.array([tests[n].input_bytes for n in names]),
            np.array([tests[n].answer_bytes for n in names]),
        )
        loaded.append(
            LoadedProblem(
                problem.slug, runtimes, references, names, [tests[n].pk for n in names], kind
            )
        )
    return loaded, skipped


def loaded_problems(split: str, slugs: list[str] | None = None):
    loaded, _ = load_problem_runtimes(slugs, split=split, language="python")
    return [p for p in loaded if p.test_kind == "optimization"]
