"""Training runs put in a stage by hand, for the pages that show a run's progress."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from runs.models import Run
from training.models import TrainingRun


def put_in_warm_start(run: Run, seconds_left: float) -> None:
    """`run` running, in its warm start at step 120 of 300, the stage ending in
    `seconds_left` seconds: the row the trainer keeps (training/sink.py)."""
    Run.objects.filter(pk=run.pk).update(status="running")
    TrainingRun.objects.filter(run=run).update(
        stage="warm start",
        progress_done=120,
        progress_total=300,
        progress_share=0.4,
        stage_ends_at=timezone.now() + timedelta(seconds=seconds_left),
    )
