"""The demo's chain after start-up (make demo): dataset build, reward simulation, two GRPO
runs; each stage reported in the terminal and on the run list, none stopping the others."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from workers.demo import DEMO_PROBLEMS, DemoStatus, do_run_demo_chain

ROOT = Path(__file__).resolve().parents[3]


class Command(BaseCommand):
    help = "Run the demo's chain: a small dataset build, the reward simulation, two GRPO runs."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--user", default="demo")
        parser.add_argument("--problems", nargs="*", default=list(DEMO_PROBLEMS))

    def handle(self, *args, url: str, user: str, problems: list[str], **options):
        status = DemoStatus(settings.VAR_DIR / "demo-status.json", url, out=self.stdout.write)
        do_run_demo_chain(
            user=user,
            problems=problems,
            build_settings={"slow_target_s": "0.3", "repeats": "2"},
            recipes=[
                ("demo-paper", ROOT / "scripts" / "demo_train.toml"),
                ("demo-rlvr", ROOT / "scripts" / "demo_train_rlvr.toml"),
            ],
            status=status,
        )
