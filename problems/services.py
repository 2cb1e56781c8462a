"""The only place that changes the problem set."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from problems.importers.kattis import ImportedProblem, find_packages, read_package
from problems.models import InputGenerator, Problem, ProblemTest, ReferenceSolution
from workers.execution.package import PackageError


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (package, reason)
    tests: int = 0

    def summary(self) -> str:
        return (
            f"{len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.skipped)} skipped, {self.tests} tests"
        )


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
        created = do_store_problem(imported)
        (report.created if created else report.updated).append(imported.slug)
        report.tests += len(imported.tests)
    return report
