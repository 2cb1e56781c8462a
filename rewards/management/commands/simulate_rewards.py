"""Run the offline reward simulator on the stored reference runtimes (rewards.simulator)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from execution.engine import MODES
from rewards import services
from rewards.config_files import BUILTIN_CONFIGS, read_config_file
from rewards.models import RewardConfig
from rewards.simulator import RANK_AGAINST


class Command(BaseCommand):
    help = (
        "Simulate reward configurations on the stored reference runtimes: monotonicity, "
        "signal density and all-negative group rate per noise level, and flags. The run is "
        "recorded and shows on the Rewards page."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--configs",
            type=Path,
            default=None,
            help="YAML/JSON list of configurations (default: the stored ones, else the "
            "built-in set).",
        )
        parser.add_argument("--noise-cv", default="0.0,0.05,0.2", help="Comma-separated CVs.")
        parser.add_argument("--group-size", default=16, help="G, samples per prompt.")
        parser.add_argument("--problems", nargs="*", default=[], help="Slugs (default: all).")
        parser.add_argument(
            "--split", choices=["train", "test"], default="", help="Only this split's problems."
        )
        parser.add_argument("--mode", choices=MODES, default="cpu")
        parser.add_argument(
            "--rank-against",
            choices=RANK_AGAINST,
            default="references",
            help="own_outputs: the negative control (docs/metrics.md), never for training.",
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--json", action="store_true", help="One JSON object per line.")

    def handle(self, *args, **options):
        try:
            configs = self._configs(options["configs"])
            request = services.check_simulation_request(
                configs=configs,
                noise_cvs=options["noise_cv"],
                group_size=options["group_size"],
                problem_slugs=options["problems"],
                split=options["split"],
                rank_against=options["rank_against"],
            )
            simulation = services.do_create_simulation(
                **request, mode=options["mode"], seed=options["seed"], started_by="cli", queue=False
            )
            simulation = services.do_run_simulation(simulation.pk, on_update=self._progress)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        sys.stderr.write(
            f"\rsimulation {simulation.pk}: {len(simulation.results)} configurations on "
            f"{len(simulation.problems_used)} problems ({len(simulation.skipped)} left out) "
            f"in {simulation.wall_seconds:.2f} s\x1b[K\n"
        )
        by_reason: dict[str, list[str]] = {}
        for slug, reason in simulation.skipped:
            by_reason.setdefault(reason, []).append(slug)
        for reason, slugs in by_reason.items():
            more = f", … {len(slugs) - 5} more" if len(slugs) > 5 else ""
            sys.stderr.write(f"  left out {len(slugs)}: {reason}: {', '.join(slugs[:5])}{more}\n")
        if options["json"]:
            for result in simulation.results:
                self.stdout.write(json.dumps(by_noise_level(result)))
        else:
            self._table(simulation)

    @staticmethod
    def _configs(path: Path | None):
        if path is not None:
            return [config for config, _ in read_config_file(path)]
        stored = [row.engine_config() for row in RewardConfig.objects.order_by("name")]
        return stored or [config for config, _ in read_config_file(BUILTIN_CONFIGS)]

    @staticmethod
    def _progress(simulation) -> None:
        sys.stderr.write(f"\r{100 * simulation.progress:.0f}% {simulation.stage}\x1b[K")
        sys.stderr.flush()

    def _table(self, simulation) -> None:
        levels = [f"{cv:g}" for cv in simulation.noise_cvs]
        width = 8 * len(levels) - 1
        all_negative = f"all-negative (G={simulation.group_size})"
        self.stdout.write(
            f"{'configuration':<34} {'monotonicity':>{width}} {'signal density':>{width}} "
            f"{all_negative:>{width}}  flags"
        )
        self.stdout.write(
            f"{'(noise CV)':<34} " + " ".join([" ".join(f"{c:>7}" for c in levels)] * 3)
        )
        for result in simulation.results:
            row = by_noise_level(result)
            cells = [
                " ".join(_cell(row[metric][c]) for c in levels)
                for metric in ("monotonicity", "signal_density", "all_negative_rate")
            ]
            self.stdout.write(
                f"{row['name']:<34} " + " ".join(cells) + "  " + ", ".join(row["flags"])
            )


def _cell(value) -> str:
    return f"{'n/a':>7}" if value is None else f"{value:>7.3f}"


def by_noise_level(result: dict) -> dict:
    """A stored ConfigResult dict with each metric keyed by noise CV ("0", "0.05", ...)."""
    levels = {f"{level['noise_cv']:g}": level for level in result["by_noise"]}
    return {
        "name": result["name"],
        **{
            metric: {cv: level[metric] for cv, level in levels.items()}
            for metric in ("monotonicity", "signal_density", "all_negative_rate", "curve")
        },
        "flagged": result["flagged"],
        "flags": result["flags"],
        "warnings": result["warnings"],
    }
