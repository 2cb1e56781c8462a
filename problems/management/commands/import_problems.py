"""Import problem packages into the problem set (idempotent: re-importing updates)."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from problems import services


class Command(BaseCommand):
    help = "Import Kattis/ICPC problem packages (or the built-in pack) found at or below PATH."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--format",
            choices=sorted(services.IMPORTERS),
            default="kattis",
            help=(
                "kattis: Kattis/ICPC packages; pack: the built-in pack (same layout); "
                "code_contests: DeepMind code_contests records (.json, .jsonl, .parquet)."
            ),
        )

    def handle(self, *args, path: Path, format: str, **options):
        if not path.exists():
            raise CommandError(f"path: {path} does not exist")

        def progress(index: int, total: int, name: str) -> None:
            sys.stderr.write(f"\r[{index + 1}/{total}] {name}\x1b[K")
            sys.stderr.flush()

        report = services.IMPORTERS[format](path, on_progress=progress)
        sys.stderr.write("\n")
        for name, reason in report.skipped:
            self.stdout.write(f"skipped {name}: {reason}")
        for name, warning in report.warnings:
            self.stdout.write(f"warning {name}: {warning}")
        self.stdout.write(report.summary())
        if not report.created and not report.updated and not report.skipped:
            what = "record" if format == "code_contests" else "problem.yaml"
            raise CommandError(f"path: no {what} at or below {path}")
