"""Store reward configurations from a YAML or JSON file (default: the built-in set)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from rewards import services
from rewards.config_files import BUILTIN_CONFIGS


class Command(BaseCommand):
    help = (
        "Store the reward configurations of a file (a list, or {configs: [...]}; fields of "
        "rewards.engine.RewardConfig), all or none; re-loading updates them by name."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "file", nargs="?", default=str(BUILTIN_CONFIGS), help="YAML or JSON file."
        )

    def handle(self, *args, file, **options):
        try:
            rows = services.do_load_configs(Path(file), user="cli")
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"{len(rows)} reward configurations stored: {', '.join(r.name for r in rows)}"
        )
