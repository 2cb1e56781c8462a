"""The only place that changes the problem set."""

from __future__ import annotations

import gzip
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from codeopt_site.jobs import failure_recorded
from problems.calibration import Pair, fit_drift
from problems.importers import code_contests
from problems.importers.kattis import ImportedProblem, find_packages, read_package
from problems.models import (
    BuildStatus,
    Calibration,
    DatasetBuild,
    InputGenerator,
    Problem,
    ProblemBuild,
    ProblemTest,
    ReferenceRuntime,
    ReferenceSolution,
    Split,
    Verdict,
)
from problems.pipeline import (
    BuildResult,
    PipelineConfig,
    ProblemOutcome,
    SourceProblem,
    SourceSolution,
    SourceTest,
    build_problem,
)
from workers.execution.checker import CheckerSettings
from workers.execution.engine import Case, Program, cost_of, measure
from workers.execution.fingerprint import machine_facts, machine_fingerprint
from workers.execution.generate import run_generator
from workers.execution.package import PackageError
from workers.execution.ranking import TIMED_OUT, Measured, speed_percentile
from workers.execution.sandbox import Limits


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (package, reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (problem, what was left out)
    tests: int = 0

    def summary(self) -> str:
        return (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.skipped)} skipped, {self.tests} tests"
        )

    def add(self, imported: ImportedProblem) -> None:
        created = do_store_problem(imported)
        (self.created if created else self.updated).append(imported.slug)
        self.tests += len(imported.tests)
        self.warnings += [(imported.slug, warning) for warning in imported.warnings]


def _sync(model, problem: Problem, existing, rows: dict[str, dict]) -> None:
    """Make `existing` (a queryset of `model` rows of `problem`, keyed by name) hold exactly
    `rows`: update those present, create the new, delete the rest. A few queries in all."""
    current = {row.name: row for row in existing}
    created, updated = [], []
    for name, fields in rows.items():
        row = current.get(name)
        if row is None:
            created.append(model(problem=problem, name=name, **fields))
            continue
        for attribute, value in fields.items():
            setattr(row, attribute, value)
        updated.append(row)
    stale = [row.pk for name, row in current.items() if name not in rows]
    if stale:
        model.objects.filter(pk__in=stale).delete()
    model.objects.bulk_create(created, batch_size=200)
    if updated:
        model.objects.bulk_update(updated, list(next(iter(rows.values()))), batch_size=100)


def do_store_problem(imported: ImportedProblem) -> bool:
    """Create or update one problem with everything it owns, in one transaction; True if
    created. Imported tests, generators and solutions no longer in the source are removed;
    the tests a dataset build generated stay (unless their generator went)."""
    with transaction.atomic():
        problem, created = Problem.objects.update_or_create(
            slug=imported.slug,
            defaults=dict(
                title=imported.title,
                statement=imported.statement,
                time_limit_s=imported.time_limit_s,
                memory_limit_mb=imported.memory_limit_mb or Problem.DEFAULT_MEMORY_MB,
                meta=imported.meta,
                source=imported.source,
                license=imported.license,
                tags=imported.tags,
                checker=imported.checker,
                validator_source=imported.validator_source,
                validator_flags=imported.validator_flags,
                origin=imported.origin,
            ),
        )
        for name, code in imported.generators.items():
            InputGenerator.objects.update_or_create(
                problem=problem, name=name, defaults={"code": code}
            )
        gone = problem.generators.exclude(name__in=list(imported.generators))
        problem.tests.filter(generator__in=gone).delete()  # made by a generator that went
        gone.delete()
        # runs on the imported tests describe them as they were: the next build re-measures
        ReferenceRuntime.objects.filter(test__problem=problem, purpose="verify").delete()
        _sync(
            ProblemTest,
            problem,
            problem.tests.filter(generator=None),
            {
                test.name: dict(
                    kind=test.kind,
                    input_gz=gzip.compress(test.input, 6),
                    answer_gz=gzip.compress(test.answer, 6),
                    input_bytes=len(test.input),
                    answer_bytes=len(test.answer),
                )
                for test in imported.tests
            },
        )
        _sync(
            ReferenceSolution,
            problem,
            problem.solutions.all(),
            {
                s["name"]: {k: s[k] for k in ("language", "code", "verdict_label")}
                for s in imported.solutions
            },
        )
    return created


def do_import_packages(
    path: Path, on_progress: Callable[[int, int, str], None] | None = None
) -> ImportReport:
    """Import every package at or below `path`. A bad package is skipped with its reason;
    the others import regardless (each in its own transaction)."""
    report = ImportReport()
    packages = find_packages(path)
    for index, root in enumerate(packages):
        if on_progress is not None:
            on_progress(index, len(packages), root.name)
        try:
            imported = read_package(root)
        except (PackageError, OSError, UnicodeDecodeError, ValueError) as exc:
            report.skipped.append((root.name, str(exc)))
            continue
        report.add(imported)
    return report


def do_import_code_contests(
    path: Path, on_progress: Callable[[int, int, str], None] | None = None
) -> ImportReport:
    """Import every code_contests record in the JSON/JSONL/Parquet files at or below `path`.
    A bad record is skipped with its reason; each good one is stored in its own transaction.
    Two records with the same name: the later one wins (as re-importing would)."""
    report = ImportReport()
    files = code_contests.find_files(path)
    counts = [code_contests.count_records(f) for f in files]
    total = sum(counts) if None not in counts else 0  # 0: unknown until read
    for index, (label, imported) in enumerate(code_contests.read_records(path)):
        if on_progress is not None:
            on_progress(index, max(total, index + 1), label)
        if isinstance(imported, code_contests.RecordError):
            report.skipped.append((label, str(imported)))
            continue
        report.add(imported)
    return report


IMPORTERS = {
    "kattis": do_import_packages,
    "pack": do_import_packages,
    "code_contests": do_import_code_contests,
}


# -- the construction pipeline -------------------------------------------------------------


def check_build_request(config_data: dict, slugs: list[str]) -> tuple[PipelineConfig, list[str]]:
    """A pipeline config and the problems it runs on; ValueError naming the field at fault."""
    config = PipelineConfig.from_dict(config_data)
    slugs = [s.strip() for s in slugs if s.strip()]
    known = set(Problem.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    unknown = [s for s in slugs if s not in known]
    if unknown:
        raise ValueError(f"problems: no problem {', '.join(unknown[:5])}")
    if not slugs and not Problem.objects.exists():
        raise ValueError("problems: the problem set is empty; import problems first")
    return config, slugs


def do_create_build(
    config: PipelineConfig, slugs: list[str], started_by: str = "", *, queue: bool = True
) -> DatasetBuild:
    """Record a build; with `queue`, the Celery task starts after the row is committed
    (without, the caller runs it with do_run_build)."""
    from workers.tasks import run_dataset_build

    build = DatasetBuild.objects.create(
        config=config.as_dict(), problem_slugs=slugs, started_by=started_by
    )
    if queue:
        transaction.on_commit(lambda: run_dataset_build.delay(build.id))
    return build


def source_problem(problem: Problem, folder: Path) -> SourceProblem:
    """The problem as pipeline input, its imported tests written under `folder`."""
    tests = []
    for test in problem.tests.filter(generator=None, regenerate=False):
        base = folder / f"test-{test.pk}"
        base.with_suffix(".in").write_bytes(gzip.decompress(bytes(test.input_gz)))
        base.with_suffix(".ans").write_bytes(gzip.decompress(bytes(test.answer_gz)))
        tests.append(
            SourceTest(test.name, test.kind, base.with_suffix(".in"), base.with_suffix(".ans"))
        )
    validators = []
    if problem.validator_source:
        validators = [folder / "validator.cpp"]
        validators[0].write_text(problem.validator_source)
    return SourceProblem(
        slug=problem.slug,
        time_limit_s=problem.time_limit_s,
        checker=CheckerSettings(**problem.checker),
        tests=tests,
        solutions=[
            SourceSolution(s.name, s.language, s.code, s.verdict_label)
            for s in problem.solutions.all()
        ],
        generators=dict(problem.generators.values_list("name", "code")),
        validator_sources=validators,
        validator_flags=tuple(problem.validator_flags.split()),
    )


def do_store_outcome(build: DatasetBuild, problem: Problem, outcome: ProblemOutcome) -> None:
    """Replace the problem's generated tests and stored reference runtimes with what this
    build made, and record how far the problem got, all in one transaction."""
    now = timezone.now()
    machine, facts = machine_fingerprint(), machine_facts()
    with transaction.atomic():
        problem.tests.exclude(generator=None).delete()  # the previous build's (and runtimes)
        ReferenceRuntime.objects.filter(test__problem=problem, purpose="verify").delete()
        generators = {g.name: g for g in problem.generators.all()}
        tests = {t.name: t for t in problem.tests.all()}  # the problem's own, after the delete
        for new in outcome.new_tests:
            stored_input = new.kind != "optimization"  # large: regenerated on demand
            tests[new.name] = ProblemTest.objects.create(
                problem=problem,
                name=new.name,
                kind=new.kind,
                input_gz=gzip.compress(new.input, 6) if stored_input else b"",
                answer_gz=gzip.compress(new.answer, 6),
                input_bytes=len(new.input),
                answer_bytes=len(new.answer),
                generator=generators[new.generator],
                seed=new.seed,
                size=new.size,
                regenerate=not stored_input,
                input_sha256=new.sha256,
            )
        solutions = {s.name: s for s in problem.solutions.all()}
        ReferenceRuntime.objects.bulk_create(
            ReferenceRuntime(
                solution=solutions[r.solution],
                test=tests[r.test],
                mode="cpu",
                verdict=r.verdict,
                cost=r.cost,
                samples=r.samples,
                measured_at=now,
                machine=machine,
                machine_facts=facts,
                purpose=r.purpose,
            )
            for r in outcome.runtimes
        )
        ProblemBuild.objects.create(
            build=build,
            problem=problem,
            stage_reached=outcome.stage_reached,
            kept=outcome.kept,
            reason=outcome.reason,
            report=outcome.report,
        )
        problem.split = outcome.split if outcome.kept else Split.UNASSIGNED
        problem.discrimination = outcome.discrimination
        problem.rank_stability = outcome.rank_stability
        problem.save(update_fields=["split", "discrimination", "rank_stability", "updated_at"])


def do_run_build(
    build_id: int,
    workdir: Path | None = None,
    on_update: Callable[[DatasetBuild], None] | None = None,
) -> DatasetBuild:
    """Run a queued build to the end, storing each problem's outcome as it finishes and the
    progress on the build row (the dataset page polls it; `on_update` sees each change)."""
    build = DatasetBuild.objects.get(pk=build_id)
    config = PipelineConfig.from_dict(build.config)
    problems = Problem.objects.order_by("slug")
    if build.problem_slugs:
        problems = problems.filter(slug__in=build.problem_slugs)
    problems = list(problems)
    build.status = BuildStatus.RUNNING
    build.save(update_fields=["status"])
    started = time.monotonic()
    outcomes: list[ProblemOutcome] = []
    with failure_recorded(DatasetBuild.objects.filter(pk=build.pk)):
        for index, problem in enumerate(problems):

            def on_stage(stage: int, name: str, index=index, problem=problem) -> None:
                build.progress = (index + stage / 5) / len(problems)
                build.stage = f"{problem.slug}: {name}"
                build.executions = sum(o.executions for o in outcomes)
                build.save(update_fields=["progress", "stage", "executions"])
                if on_update is not None:
                    on_update(build)

            with tempfile.TemporaryDirectory(prefix="codeopt-source-", dir=workdir) as folder:
                source = source_problem(problem, Path(folder))
                outcome = build_problem(source, config, workdir=workdir, on_stage=on_stage)
            do_store_outcome(build, problem, outcome)
            outcomes.append(outcome)
    result = BuildResult(outcomes, sum(o.executions for o in outcomes), time.monotonic() - started)
    DatasetBuild.objects.filter(pk=build.pk).update(
        status=BuildStatus.DONE,
        progress=1.0,
        stage="done",
        funnel=[list(step) for step in result.funnel()],
        executions=result.executions,
        wall_seconds=result.wall_seconds,
        finished_at=timezone.now(),
    )
    build.refresh_from_db()
    return build


# -- stored reference runtimes and drift calibration ----------------------------------------


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
    on the tests it ran (see workers.execution.ranking)."""
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
    machine, facts, pairs, new_rows = machine_fingerprint(), machine_facts(), [], []
    for index, problem in enumerate(problems):
        if on_progress is not None:
            on_progress(index, len(problems), problem.slug)
        stored = list(
            ReferenceRuntime.objects.filter(
                test__problem=problem, purpose="build", mode=mode, verdict="OK"
            ).select_related("test", "test__generator", "solution")
        )
        tests = {row.test.pk: row.test for row in stored}
        solutions = {row.solution.pk: row.solution for row in stored}
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
        now = timezone.now()
        fresh = {
            (name, result.name): result
            for name, report in reports.items()
            for result in report.tests
        }
        for row in stored:
            result = fresh[(row.solution.name, row.test.name)]
            cost = cost_of(result, mode) if result.verdict == "OK" else None
            new_rows.append(
                ReferenceRuntime(
                    solution=row.solution,
                    test=row.test,
                    mode=mode,
                    verdict=result.verdict,
                    cost=cost,
                    samples=list(result.cpu_samples if mode == "cpu" else result.wall_samples),
                    measured_at=now,
                    machine=machine,
                    machine_facts=facts,
                    purpose="calibration",
                )
            )
            if cost is not None:
                pairs.append(
                    Pair(row.solution.name, f"{problem.slug}/{row.test.name}", row.cost, cost)
                )
    fit = fit_drift(pairs)  # ValueError (too few pairs) before anything is written
    with transaction.atomic():  # the re-measurements and their fit together, or nothing
        ReferenceRuntime.objects.bulk_create(new_rows)
        return Calibration.objects.create(
            mode=mode,
            machine=machine,
            slope=fit.slope,
            intercept=fit.intercept,
            spearman_before=fit.spearman_before,
            spearman_after=fit.spearman_after,
            pairs=fit.pairs,
            points=[[p.old, p.new, p.solution, p.test] for p in pairs],
            problem_slugs=[p.slug for p in problems],
        )
