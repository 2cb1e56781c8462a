"""Timing noise by mode on real references (PAPER.md s.2): rank jitter of built problems'
references in wall, cpu and instructions modes, idle and under a bounded load."""

from __future__ import annotations

import json as jsonlib
import sys

from django.core.management.base import BaseCommand, CommandError

from timing.fidelity import noise_by_mode


class Command(BaseCommand):
    help = (
        "Re-score built problems' own correct references in wall, cpu and instructions "
        "modes, idle and beside busy processes, and report each one's rank jitter "
        "(percentile points; the paper: ~41 on busy hosts, ~2 isolated). Stored for the "
        "Timing page."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--problems", nargs="*", default=None, help="Built slugs (default: the cheapest)."
        )
        parser.add_argument(
            "--quick", action="store_true", help="1 problem, 2 scorings each (~8 min on 2 cores)."
        )
        parser.add_argument(
            "--scorings",
            type=int,
            default=None,
            help="Scorings of each group in wall and cpu modes (default 5; --quick 2, the "
            "paper's 'between repeats'). 65-100 s each per problem and mode here.",
        )
        parser.add_argument("--no-store", action="store_true", help="Print only; keep nothing.")
        parser.add_argument("--json", action="store_true", help="One JSON object on stdout.")

    def handle(self, *args, problems, quick: bool, scorings, no_store: bool, json: bool, **options):
        def progress(done: int, total: int, label: str) -> None:
            sys.stderr.write(f"\r[{done}/{total}] {label}\x1b[K")
            sys.stderr.flush()

        try:
            result = noise_by_mode(
                problems or None, quick, not no_store, scorings=scorings, on_progress=progress
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        sys.stderr.write("\n")
        if json:
            self.stdout.write(jsonlib.dumps(result))
            return
        self.stdout.write(
            f"problems: {', '.join(result['problems'])} ({result['programs']} programs); "
            f"loaded = {result['load_processes']} busy processes; {result['seconds']:.0f} s"
        )
        self.stdout.write("rank jitter, percentile points: p50 / p95 / max")
        for mode, by_condition in result["results"].items():
            for condition, cell in by_condition.items():
                figures = " / ".join(
                    "–" if cell[k] is None else f"{cell[k]:.2f}" for k in ("p50", "p95", "max")
                )
                self.stdout.write(
                    f"  {mode:<12} {condition:<6} {figures}  ({cell['scorings']} scorings, "
                    f"{cell['seconds']:.0f} s)"
                )
        paper = ", ".join(f"{k}: ~{v:g}" for k, v in result["paper"].items())
        self.stdout.write(f"paper: {paper}")
        if result["id"] is not None:
            self.stdout.write(f"stored as check {result['id']}: the Timing page charts it")
