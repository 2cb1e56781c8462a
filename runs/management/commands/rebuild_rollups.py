"""Recompute the downsampling rollups of runs from their stored points."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from runs import services
from runs.models import Run


class Command(BaseCommand):
    help = "Recompute the per-bucket extremes that serve downsampled charts, from the raw points."

    def add_arguments(self, parser):
        parser.add_argument("run_ids", nargs="*", type=int, help="Runs to rebuild (default: all).")

    def handle(self, *args, run_ids: list[int], **options):
        runs = Run.objects.filter(pk__in=run_ids) if run_ids else Run.objects.all()
        missing = set(run_ids) - set(runs.values_list("pk", flat=True))
        if missing:
            raise CommandError(f"run_ids: no run {', '.join(map(str, sorted(missing)))}")
        for run in runs:
            count = services.do_rebuild_rollups(run)
            self.stdout.write(f"run {run.pk}: {count} series rebuilt")
