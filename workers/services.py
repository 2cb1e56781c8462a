"""Worker-side services."""

from __future__ import annotations

import random
import time

from django.conf import settings
from rest_framework.authtoken.models import Token

from runs import client
from runs.models import Run
from workers.synthetic import synthetic_step


def do_replay_synthetic_run(run_id: int, api_url: str, total_steps: int, interval: float) -> int:
    """Stream the synthetic metrics of `run_id` through the HTTP API, as a trainer would.

    Going through the API (not the database) is what makes the points reach open pages in
    every deployment, the in-process channel layer included. Returns the steps sent.
    """
    run = Run.objects.select_related("owner").get(pk=run_id)
    token, _ = Token.objects.get_or_create(user=run.owner)
    metrics = client.MetricsClient(
        api_url, token.key, run_id, flush_interval=interval, spool_dir=settings.VAR_DIR / "spool"
    )
    rng = random.Random(run_id)
    try:
        for step in range(total_steps):
            metrics.log(step, synthetic_step(step, total_steps, rng))
            time.sleep(interval)
    finally:
        metrics.close(timeout=60)
    client.set_status(api_url, token.key, run_id, "finished")
    return total_steps
