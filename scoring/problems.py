"""A built problem as the scorer takes it (ScoringProblem): its tests written to a folder, its
references' stored runtimes and code, its checker."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from execution.checker import CheckerSettings
from execution.engine import Case
from problems.models import ProblemTest
from problems.services import materialize_test
from scoring.scorer import ScoringProblem


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
