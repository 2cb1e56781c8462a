"""Measure a program on a Kattis/ICPC problem package, beside the package's own solutions."""

from __future__ import annotations

import json as jsonlib
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from workers.execution.engine import LANGUAGES, MODES, Program, measure
from workers.execution.package import EXTENSIONS, PackageError, load_package
from workers.execution.report import program_speed_percentile, test_row
from workers.execution.sandbox import Limits, SandboxUnavailable


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
        try:
            package = load_package(problem_dir)
        except PackageError as exc:
            raise CommandError(f"problem-dir: {exc}") from None
        folders = [f.strip() for f in references.split(",") if f.strip()]
        refs = [s for s in package.solutions if s.verdict_dir in folders]
        programs = [Program("program", program.read_text(), language)]
        programs += [Program(s.name, s.path.read_text(), s.language) for s in refs]
        limits = Limits(cpu_seconds=package.time_limit_s, wall_seconds=3 * package.time_limit_s + 2)

        def progress(index: int, total: int, name: str) -> None:
            sys.stderr.write(f"\r[{index + 1}/{total}] {name} ({len(programs)} programs)\x1b[K")
            sys.stderr.flush()

        try:
            reports = measure(
                programs,
                package.tests,
                limits=limits,
                mode=mode,
                repeats=repeats,
                checker=package.checker,
                validator_sources=package.validator_sources,
                validator_flags=tuple(package.validator_flags),
                on_progress=progress,
            )
        except SandboxUnavailable as exc:
            raise CommandError(str(exc)) from None
        sys.stderr.write("\n")
        mine = reports["program"]
        others = [reports[s.name] for s in refs]
        percentile = program_speed_percentile(mine, others, package.ranked_tests)
        result = {
            "problem": package.name,
            "mode": mode,
            "verdict": mine.verdict,
            "compile_message": mine.compile_message,
            "tests": [test_row(r) for r in mine.tests],
            "speed_percentile": percentile,
            "ranked_tests": len(package.ranked_tests),
            "references": [
                {
                    "name": s.name,
                    "verdict": reports[s.name].verdict,
                    "speed_percentile": program_speed_percentile(
                        reports[s.name],
                        [o for o in others if o is not reports[s.name]],
                        package.ranked_tests,
                    ),
                }
                for s in refs
            ],
        }
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
