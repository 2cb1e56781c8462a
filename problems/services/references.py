"""Stored reference runtimes: a test's files written out, the runtimes put on today's scale by
the latest drift calibration, ranking against them, and the calibration itself."""

from __future__ import annotations

import gzip
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from execution.checker import CheckerSettings
from execution.engine import Case, Program, cost_of, measure
from execution.fingerprint import machine_facts, machine_fingerprint
from execution.generate import run_generator
from execution.sandbox import Limits
from foundation.ranking import TIMED_OUT, Measured, speed_percentile
from problems.calibration import Pair, fit_drift
from problems.models import (
    Calibration,
    Problem,
    ProblemTest,
    ReferenceRuntime,
    ReferenceSolution,
    Verdict,
)
from problems.pipeline.model import Runtime


def materialize_test(test: ProblemTest, folder: Path) -> tuple[Path, Path]:
    """Write a test's input and answer under `folder`; a regenerated input is made again by
    its generator in the sandbox and checked against the stored hash (ValueError if the
    generator no longer reproduces it)."""
    input_path, answer_path = folder / f"test-{test.pk}.in", folder / f"test-{test.pk}.ans"
    answer_path.write_bytes(gzip.decompress(bytes(test.answer_gz)))
    if not test.regenerate:
        input_path.write_bytes(gzip.decompress(bytes(test.input_gz)))
        return input_path, answer_path
    made = run_generator(test.generator.code, test.seed, test.size, input_path)
    if not made.ok:
        raise ValueError(f"{test.problem.slug} {test.name}: {made.message}")
    if made.sha256 != test.input_sha256:
        raise ValueError(
            f"{test.problem.slug} {test.name}: the generator no longer reproduces the input"
        )
    return input_path, answer_path


def runtime_rows(
    runtimes: Iterable[Runtime],
    solutions: dict[str, ReferenceSolution],
    tests: dict[str, ProblemTest],
    mode: str,
) -> list[ReferenceRuntime]:
    """Rows (not saved) for `runtimes` measured just now on this machine in `mode`, each
    naming its solution and test: keys of `solutions` and `tests`, one problem's by name."""
    now, machine, facts = timezone.now(), machine_fingerprint(), machine_facts()
    return [
        ReferenceRuntime(
            solution=solutions[r.solution],
            test=tests[r.test],
            mode=mode,
            verdict=r.verdict,
            cost=r.cost,
            samples=r.samples,
            measured_at=now,
            machine=machine,
            machine_facts=facts,
            purpose=r.purpose,
        )
        for r in runtimes
    ]


def latest_calibration(mode: str) -> Calibration | None:
    return Calibration.objects.filter(mode=mode).order_by("-created_at", "-pk").first()


def corrected_reference_costs(problems, mode: str = "cpu", purposes: tuple[str, ...] = ("build",)):
    """The stored runtimes (of `purposes`) of the correct references (accepted and too-slow)
    of `problems` (a queryset or list), as (row, cost): TIMED_OUT for a timed-out run, costs
    measured before the latest calibration mapped to today's scale by its fit; failed runs
    are left out."""
    calibration = latest_calibration(mode)
    rows = ReferenceRuntime.objects.filter(
        test__problem__in=problems,
        mode=mode,
        purpose__in=purposes,
        solution__verdict_label__in=[Verdict.ACCEPTED, Verdict.TOO_SLOW],
    ).select_related("test", "solution")
    rows = rows.defer("test__input_gz", "test__answer_gz", "solution__code")  # sizes suffice
    for row in rows:
        if row.verdict == "TIME_LIMIT":
            yield row, TIMED_OUT
        elif row.verdict != "OK" or row.cost is None:
            continue
        elif calibration is not None and row.measured_at < calibration.created_at:
            yield row, calibration.slope * row.cost + calibration.intercept
        else:
            yield row, row.cost


def stored_references(problem: Problem, mode: str = "cpu") -> dict[str, list[Measured]]:
    """The problem's stored reference runtimes per test, as the ranking reads them
    (see corrected_reference_costs)."""
    references: dict[str, list[Measured]] = {}
    for row, cost in corrected_reference_costs([problem], mode):
        references.setdefault(row.test.name, []).append(Measured(cost, True))
    return references


def rank_against_stored(
    problem: Problem, program: dict[str, Measured], mode: str = "cpu"
) -> float | None:
    """Speed percentile of a program measured now against the stored (corrected) references
    on the tests it ran (see foundation.ranking)."""
    references = stored_references(problem, mode)
    tests = [name for name in program if name in references]
    per_reference = [{name: measured} for name in tests for measured in references[name]]
    return speed_percentile(program, per_reference, tests)


def _calibration_problems(mode: str, slugs: list[str], limit: int | None) -> list[Problem]:
    ids = (
        ReferenceRuntime.objects.filter(purpose="build", mode=mode, verdict="OK")
        .values_list("test__problem", flat=True)
        .distinct()
    )
    problems = Problem.objects.filter(pk__in=ids).order_by("slug")
    if slugs:
        problems = problems.filter(slug__in=slugs)
    return list(problems[:limit] if limit else problems)


def do_calibrate(
    *,
    limit: int | None = None,
    slugs: list[str] | None = None,
    mode: str = "cpu",
    repeats: int = 3,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> Calibration:
    """Re-measure the stored references of some problems now, fit the drift and store the
    fit (with its points) as the newest calibration.

    1. Take the problems with stored runtimes in `mode` (the first `limit` by slug, or
       `slugs`).
    2. For each, regenerate its measured tests and run the references that finished there,
       interleaved, `repeats` times; store those runtimes (purpose "calibration").
    3. Fit new ≈ a·old + b over every (stored, new) pair; Spearman before and after.
    """
    unknown = sorted(set(slugs or []) - set(Problem.objects.values_list("slug", flat=True)))
    if unknown:
        raise ValueError(f"slugs: no problem {', '.join(unknown[:5])}")
    problems = _calibration_problems(mode, slugs or [], limit)
    if not problems:
        raise ValueError("problems: no problem has stored reference runtimes; run build_dataset")
    pairs, new_rows = [], []
    for index, problem in enumerate(problems):
        if on_progress is not None:
            on_progress(index, len(problems), problem.slug)
        stored = list(
            ReferenceRuntime.objects.filter(
                test__problem=problem, purpose="build", mode=mode, verdict="OK"
            ).select_related("test", "test__generator", "solution")
        )
        tests = {row.test.name: row.test for row in stored}
        solutions = {row.solution.name: row.solution for row in stored}
        with tempfile.TemporaryDirectory(prefix="codeopt-calibrate-") as folder:
            cases = [
                Case(test.name, *materialize_test(test, Path(folder)), test.kind)
                for test in tests.values()
            ]
            slowest = max(row.cost for row in stored)
            reports = measure(
                [Program(s.name, s.code, s.language) for s in solutions.values()],
                cases,
                limits=Limits(cpu_seconds=4 * slowest + 1, wall_seconds=12 * slowest + 3),
                mode=mode,
                repeats=repeats,
                checker=CheckerSettings(**problem.checker),
            )
        fresh = {
            (name, result.name): result
            for name, report in reports.items()
            for result in report.tests
        }
        remeasured = []
        for row in stored:
            result = fresh[(row.solution.name, row.test.name)]
            cost = cost_of(result, mode) if result.verdict == "OK" else None
            samples = result.cpu_samples if mode == "cpu" else result.wall_samples
            remeasured.append(
                Runtime(
                    row.solution.name,
                    row.test.name,
                    result.verdict,
                    cost,
                    list(samples),
                    purpose="calibration",
                )
            )
            if cost is not None:
                pairs.append(
                    Pair(row.solution.name, f"{problem.slug}/{row.test.name}", row.cost, cost)
                )
        new_rows += runtime_rows(remeasured, solutions, tests, mode)
    fit = fit_drift(pairs)  # ValueError (too few pairs) before anything is written
    with transaction.atomic():  # the re-measurements and their fit together, or nothing
        ReferenceRuntime.objects.bulk_create(new_rows)
        return Calibration.objects.create(
            mode=mode,
            machine=machine_fingerprint(),
            slope=fit.slope,
            intercept=fit.intercept,
            spearman_before=fit.spearman_before,
            spearman_after=fit.spearman_after,
            pairs=fit.pairs,
            points=[[p.old, p.new, p.solution, p.test] for p in pairs],
            problem_slugs=[p.slug for p in problems],
        )
