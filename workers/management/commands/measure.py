"""Measure a program on a Kattis/ICPC problem package, beside the package's own solutions."""

from __future__ import annotations

import json as jsonlib
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from execution.engine import LANGUAGES, MODES
from execution.package import EXTENSIONS, PackageError
from execution.report import measure_package
from execution.sandbox import SandboxUnavailable


class Command(BaseCommand):
    help = (
        "Run PROGRAM on every test of a problem package, interleaved with the package's "
        "reference solutions, and print verdicts, times and the speed percentile."
    )

    def add_arguments(self, parser):
        parser.add_argument("program", type=Path, help="Source file (.py, .cc, .cpp).")
        parser.add_argument("--problem-dir", type=Path, required=True)
        parser.add_argument(
            "--language", choices=sorted(LANGUAGES), help="Default: from the extension."
        )
        parser.add_argument("--mode", choices=MODES, default="cpu")
        parser.add_argument("--repeats", type=int, default=5, help="Runs per test (cpu, wall).")
        parser.add_argument(
            "--references",
            default="accepted",
            help="Solution folders ranked against, comma-separated (default: accepted).",
        )
        parser.add_argument("--json", action="store_true", help="One JSON object on stdout.")

    def handle(
        self,
        *args,
        program: Path,
        problem_dir: Path,
        language,
        mode,
        repeats,
        references,
        json: bool,
        **options,
    ):
        if not program.is_file():
            raise CommandError(f"program: no file {program}")
        language = language or EXTENSIONS.get(program.suffix)
        if language is None:
            raise CommandError(f"language: cannot tell from {program.name}; pass --language")
        if repeats < 1:
            raise CommandError("repeats: must be at least 1")
        folders = tuple(f.strip() for f in references.split(",") if f.strip())

        def progress(index: int, total: int, name: str) -> None:
            sys.stderr.write(f"\r[{index + 1}/{total}] {name}\x1b[K")
            sys.stderr.flush()

        try:
            result = measure_package(
                problem_dir,
                program.read_text(),
                language,
                mode=mode,
                repeats=repeats,
                reference_folders=folders,
                on_progress=progress,
            )
        except PackageError as exc:
            raise CommandError(f"problem-dir: {exc}") from None
        except SandboxUnavailable as exc:
            raise CommandError(str(exc)) from None
        sys.stderr.write("\n")
        if json:
            self.stdout.write(_json(result))
            return
        self._print(result)

    def _print(self, result: dict) -> None:
        unit = {"cpu": "cpu_s", "wall": "wall_s", "instructions": "instructions"}[result["mode"]]
        self.stdout.write(f"{result['problem']}: {result['verdict']} (mode {result['mode']})")
        for row in result["tests"]:
            value = row[unit]
            shown = (
                "-"
                if value is None
                else (f"{value:.4f}" if isinstance(value, float) else str(value))
            )
            self.stdout.write(
                f"  {row['name']:<30} {row['verdict']:<14} {unit}={shown:<12} "
                f"peak={row['peak_kb']} KiB {row['message'][:60]}"
            )
        percentile = result["speed_percentile"]
        self.stdout.write(
            "speed percentile: "
            + (
                "n/a"
                if percentile is None
                else f"{percentile:.1f} (0 = faster than every reference)"
            )
            + f" over {result['ranked_tests']} tests,"
            + f" against {len(result['references'])} references"
        )
        for ref in result["references"]:
            self.stdout.write(f"  reference {ref['name']}: {ref['verdict']}")


def _json(result: dict) -> str:
    return jsonlib.dumps(result, indent=2, default=str)
