"""The only place that changes the problem set."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from problems.importers import code_contests
from problems.importers.kattis import ImportedProblem, find_packages, read_package
from problems.models import InputGenerator, Problem, ProblemTest, ReferenceSolution
from workers.execution.package import PackageError


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


def do_store_problem(imported: ImportedProblem) -> bool:
    """Create or update one problem with everything it owns, in one transaction; True if
    created. Tests, generators and solutions no longer in the package are removed."""
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
        generators = {}
        for name, code in imported.generators.items():
            generators[name], _ = InputGenerator.objects.update_or_create(
                problem=problem, name=name, defaults={"code": code}
            )
        problem.generators.exclude(name__in=list(imported.generators)).delete()
        for test in imported.tests:
            ProblemTest.objects.update_or_create(
                problem=problem,
                name=test.name,
                defaults=dict(
                    kind=test.kind,
                    input_gz=gzip.compress(test.input, 6),
                    answer_gz=gzip.compress(test.answer, 6),
                    input_bytes=len(test.input),
                    generator=None,
                    seed=None,
                    size=None,
                    regenerate=False,
                ),
            )
        problem.tests.exclude(name__in=[t.name for t in imported.tests]).delete()
        for solution in imported.solutions:
            ReferenceSolution.objects.update_or_create(
                problem=problem,
                name=solution["name"],
                defaults={k: solution[k] for k in ("language", "code", "verdict_label")},
            )
        problem.solutions.exclude(name__in=[s["name"] for s in imported.solutions]).delete()
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
