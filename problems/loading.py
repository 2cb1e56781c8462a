"""Built problems as the engines take them: stored reference runtimes (the simulator's and the
ranking's input), a problem's tests written to a folder with its references' code (the
scorer's ScoringProblem), the slowest reference (a baseline for prompts)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.db.models import Count, Q

from problems.function_task import FunctionTask
from problems.models import Problem, ProblemTest, ReferenceRuntime, ReferenceSolution, Verdict
from problems.services import corrected_reference_costs, materialize_test
from rewards import engine
from workers.execution.checker import CheckerSettings
from workers.execution.engine import Case
from workers.training.scoring import ScoringProblem


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


def _materialized(test, folder: Path) -> tuple[Path, Path]:
    """A test's files under `folder`, written once per folder (regenerated inputs are costly:
    a scoring worker keeps them for every later step)."""
    input_path, answer_path = folder / f"test-{test.pk}.in", folder / f"test-{test.pk}.ans"
    if input_path.exists() and answer_path.exists():
        return input_path, answer_path
    return materialize_test(test, folder)


def scoring_problem(item, folder: Path):
    """The ScoringProblem of one loaded problem (LoadedProblem)."""
    tests = {
        t.pk: t
        for t in ProblemTest.objects.select_related("problem", "generator").filter(
            pk__in=item.test_ids
        )
    }
    problem = tests[item.test_ids[0]].problem
    optimization = [
        Case(tests[pk].name, *_materialized(tests[pk], folder), "optimization")
        for pk in item.test_ids
    ]
    correctness = [
        Case(t.name, *_materialized(t, folder), t.kind)
        for t in problem.tests.filter(kind__in=["sample", "correctness"])
    ]
    finite = item.runtimes.reference_costs[np.isfinite(item.runtimes.reference_costs)]
    slowest = float(finite.max()) if finite.size else problem.time_limit_s
    codes = dict(
        problem.solutions.filter(language="python", name__in=item.references).values_list(
            "name", "code"
        )
    )
    return problem, ScoringProblem(
        item.slug,
        item.runtimes,
        correctness,
        optimization,
        CheckerSettings(**problem.checker),
        cap_s=max(3 * slowest, 1.0),  # well past the slowest human: slower is timed out
        # every row of the stored runtimes, or none: interleaved ranking needs them all
        reference_programs=(
            {name: codes[name] for name in item.references}
            if len(codes) == len(item.references)
            else {}
        ),
    )


def loaded_problems(split: str, slugs: list[str] | None = None):
    loaded, _ = load_problem_runtimes(slugs, split=split, language="python")
    return [p for p in loaded if p.test_kind == "optimization"]


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
