"""Create a clearly labelled synthetic demo run and queue its replay on the Celery worker."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from execution.samples import MEDIUM, write_sum_package
from foundation.sending import enqueue
from foundation.tenancy import Team
from runs import services
from runs.management.commands.demo_setup import DEMO_TEAM, DEMO_USER
from runs.models import Run, RunStatus
from timing.services import do_submit_timing_job
from workers.synthetic import SYNTHETIC_NOTE

DEMO_RUN_NAME = "demo: synthetic replay (not a real training run)"


class Command(BaseCommand):
    help = "Start the demo run: synthetic metrics streamed live through the API by the worker."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000", help="The server's base URL.")
        parser.add_argument(
            "--steps", type=int, default=2400, help="Steps to replay (20 minutes at 0.5 s)."
        )
        parser.add_argument("--interval", type=float, default=0.5, help="Seconds between steps.")

    def handle(self, *args, url: str, steps: int, interval: float, **options):
        user = get_user_model().objects.get(username=DEMO_USER)
        # A demo stopped with Ctrl-C left its run "running": say what happened to it.
        for stale in Run.objects.filter(
            owner=user, name=DEMO_RUN_NAME, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
        ):
            services.do_set_run_status(stale, RunStatus.STOPPED)
        run = services.do_create_run(
            owner=user,
            team=Team.objects.get(name=DEMO_TEAM),
            name=DEMO_RUN_NAME,
            model_name="none (synthetic)",
            tags=["demo", "synthetic"],
            notes=SYNTHETIC_NOTE,
            config={"kind": "synthetic-replay", "steps": steps, "interval_seconds": interval},
            status=RunStatus.QUEUED,
        )
        enqueue("workers.replay_synthetic_run", run.pk, url, steps, interval)
        self.stdout.write(f"  demo run    : {url}/runs/{run.pk}/  (queued on the Celery worker)\n")
        # A real timing job, so the Timing page has noise statistics to show; its package is
        # written under var/packages, one of the default CODEOPT_PACKAGE_ROOTS.
        package = settings.VAR_DIR / "packages" / "demo-sum"
        if not package.exists():
            write_sum_package(package)
        do_submit_timing_job(
            user,
            kind="jitter",
            package_dir=str(package),
            source=MEDIUM,
            language="python",
            modes="wall,cpu,instructions",
            repeats=3,
            remeasure=3,
        )
        self.stdout.write(f"  timing job  : {url}/timing/  (rank jitter of a sample program)\n")
