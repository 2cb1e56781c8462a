"""Importing problems: Kattis/ICPC packages, code_contests records, the built-in pack."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.db.models import Q

from execution.package import PackageError
from problems.importers import code_contests
from problems.importers.kattis import ImportedProblem, find_packages, read_package
from problems.models import (
    GeneratorSource,
    InputGenerator,
    Problem,
    ProblemTest,
    ReferenceRuntime,
    ReferenceSolution,
)


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
                function_task=imported.function_task,
                source=imported.source,
                license=imported.license,
                tags=imported.tags,
                checker=imported.checker,
                validator_source=imported.validator_source,
                validator_flags=imported.validator_flags,
                origin=imported.origin,
            ),
        )
        # the hand-written generators as imported; those a build proposed (inferred, llm)
        # stay, unless an imported one takes the name. A generator that goes takes its tests
        # first (a test whose generator is deleted would look imported).
        names = list(imported.generators)
        hand = Q(source=GeneratorSource.HAND)
        gone = problem.generators.filter((hand & ~Q(name__in=names)) | (~hand & Q(name__in=names)))
        problem.tests.filter(generator__in=gone).delete()
        gone.delete()
        for name, code in imported.generators.items():
            InputGenerator.objects.update_or_create(
                problem=problem, name=name, defaults={"code": code, "source": GeneratorSource.HAND}
            )
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
