"""Start a GRPO training run from a TOML config (training/config.py)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from foundation.commands import exiting_on_value_error, run_in_foreground, user_named
from foundation.tenancy import check_team_for_new_run
from training import services as training_services
from training.config import TrainConfig


class Command(BaseCommand):
    help = (
        "Start a training run from CONFIG.toml (fields: training/config.py). In the "
        "foreground by default; --queue hands it to a worker on the `gpu` queue."
    )

    def add_arguments(self, parser):
        parser.add_argument("config", type=Path, help="TOML file; an empty file takes defaults.")
        parser.add_argument("--name", default="", help="Run name (default: the file's stem).")
        parser.add_argument("--user", required=True, help="Owner of the run.")
        parser.add_argument("--team", default=None, help="Team (default: the user's only one).")
        parser.add_argument("--queue", action="store_true", help="Run on a `gpu` worker.")

    def handle(self, *args, config, name, user, team, queue, **options):
        owner = user_named(user)
        with exiting_on_value_error():
            data = TrainConfig.from_toml(config).as_dict()
            checked, reward = training_services.check_train_request(data)
            team_row = check_team_for_new_run(owner, team)
        run = training_services.do_start_training(
            owner=owner,
            team=team_row,
            name=name or config.stem,
            config=checked,
            reward=reward,
            queue=queue,
        )
        self.stdout.write(f"run {run.pk} ({run.name}) {'queued' if queue else 'started'}")
        if not queue:
            status = run_in_foreground(
                self, training_services.do_run_training, run.pk, worker="cli"
            )
            self.stdout.write(f"run {run.pk}: {status}")
