"""Re-measure stored reference runtimes and fit the drift (problems.calibration)."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from execution.engine import MODES
from problems import services


class Command(BaseCommand):
    help = (
        "Re-measure the stored references of some problems now, fit new ≈ a·old + b, "
        "report Spearman rank agreement before and after, and store the fit."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--problems", type=int, default=None, help="How many problems (default: all)."
        )
        parser.add_argument("--slugs", nargs="*", default=[], help="These problems instead.")
        parser.add_argument("--mode", choices=MODES, default="cpu")
        parser.add_argument("--repeats", type=int, default=3)

    def handle(self, *args, problems, slugs, mode, repeats, **options):
        if problems is not None and problems < 1:
            raise CommandError("problems: must be at least 1")
        if repeats < 1:
            raise CommandError("repeats: must be at least 1")

        def progress(index: int, total: int, name: str) -> None:
            sys.stderr.write(f"\r[{index + 1}/{total}] {name}\x1b[K")
            sys.stderr.flush()

        try:
            calibration = services.do_calibrate(
                limit=problems, slugs=slugs, mode=mode, repeats=repeats, on_progress=progress
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        sys.stderr.write("\n")

        def rho(value):
            return "n/a" if value is None else f"{value:.3f}"

        self.stdout.write(
            f"calibration {calibration.pk}: {calibration.formula} over {calibration.pairs} pairs "
            f"({len(calibration.problem_slugs)} problems); Spearman before "
            f"{rho(calibration.spearman_before)}, after {rho(calibration.spearman_after)}"
        )
