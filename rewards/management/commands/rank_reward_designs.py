"""Rank the reward design space at a measured timing noise (rewards.design_ranking)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from execution.engine import MODES
from rewards import fidelity


class Command(BaseCommand):
    help = (
        "Rank the stored reward configurations (else the built-in set) with the offline "
        "simulator at one timing noise level on the stored reference runtimes: score = "
        "monotonicity x middle rise x gating. The ranking is stored and the Rewards page "
        "marks its winner."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--noise-cv",
            type=float,
            required=True,
            help="Timing noise to rank at: the coefficient of variation of CPU time measured "
            "on the Timing page (0.2 for 20%%).",
        )
        parser.add_argument("--problems", nargs="*", default=[], help="Slugs (default: all).")
        parser.add_argument(
            "--split", choices=["train", "test"], default="", help="Only this split's problems."
        )
        parser.add_argument("--mode", choices=MODES, default="cpu")
        parser.add_argument(
            "--quick", action="store_true", help="3 noise draws on at most 100 problems."
        )
        parser.add_argument("--no-store", action="store_true", help="Print only.")
        parser.add_argument("--json", action="store_true", help="The whole result as JSON.")

    def handle(self, *args, **options):
        try:
            result = fidelity.do_rank_reward_designs(
                options["noise_cv"],
                problem_slugs=options["problems"],
                split=options["split"],
                mode=options["mode"],
                quick=options["quick"],
                store=not options["no_store"],
                started_by="cli",
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        self.stdout.write(
            f"{'rank':>4}  {'configuration':<34} {'score':>6} {'±':>5} {'monot.':>6} "
            f"{'middle':>6} {'gating':>6}  family"
        )
        for score in result["scores"]:
            self.stdout.write(
                f"{score['rank']:>4}  {score['name']:<34} {score['score']:>6.3f} "
                f"{score['score_spread']:>5.3f} {score['monotonicity']:>6.3f} "
                f"{score['middle_rise']:>6.3f} {score['gating']:>6.3f}  {score['family']}"
            )
        self.stdout.write("")
        self.stdout.write(result["why"])
        stored = f"stored as ranking #{result['id']}" if result["id"] else "not stored"
        self.stdout.write(
            f"\n{len(result['problems_used'])} problems ({len(result['skipped'])} left out), "
            f"{result['configs_from']} configurations, {result['wall_seconds']:.1f} s, {stored}."
        )
