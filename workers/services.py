"""Worker-side services: the only place that changes workers' state."""

from __future__ import annotations

import random
import time
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.authtoken.models import Token

from runs import client
from runs.models import Run
from workers.execution.engine import LANGUAGES, MAX_SOURCE_BYTES, MODES
from workers.execution.package import PackageError, load_package
from workers.execution.report import jitter_package, measure_package
from workers.models import TimingJob
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


# --- timing jobs ----------------------------------------------------------------------------


def check_timing_job(
    *,
    package_dir: str,
    source: str,
    language: str,
    modes: list[str],
    repeats: int,
    remeasure: int,
    kind: str,
) -> None:
    """ValueError("field: reason") for the first bad field."""
    if kind not in TimingJob.Kind.values:
        raise ValueError(f"kind: must be one of {', '.join(TimingJob.Kind.values)}")
    if language not in LANGUAGES:
        raise ValueError(f"language: must be one of {', '.join(LANGUAGES)}")
    if not modes or any(m not in MODES for m in modes):
        raise ValueError(f"modes: each must be one of {', '.join(MODES)}")
    if kind == TimingJob.Kind.MEASURE and len(modes) != 1:
        raise ValueError("modes: a measure job takes exactly one mode")
    if not 1 <= repeats <= 50:
        raise ValueError("repeats: must be between 1 and 50")
    if not 2 <= remeasure <= 20:
        raise ValueError("remeasure: must be between 2 and 20")
    if not source.strip():
        raise ValueError("source: is empty")
    if len(source.encode()) > MAX_SOURCE_BYTES:
        raise ValueError(f"source: over {MAX_SOURCE_BYTES} bytes")
    try:
        load_package(Path(package_dir))
    except PackageError as exc:
        raise ValueError(f"package_dir: {exc}") from None


def do_submit_timing_job(owner, **fields) -> TimingJob:
    """Validate, store, and queue the job on `timing` once the row is committed."""
    modes = [m.strip() for m in fields.pop("modes").split(",") if m.strip()]
    check_timing_job(modes=modes, **fields)
    job = TimingJob.objects.create(owner=owner, modes=",".join(modes), **fields)
    transaction.on_commit(lambda: notify_timing_queue(job.id))
    return job


def notify_timing_queue(job_id) -> None:
    from workers.tasks import run_timing_job

    run_timing_job.apply_async(args=[str(job_id)], queue="timing")


def _claim(job_id: str, worker: str) -> TimingJob | None:
    """Mark the job running, or None when it already ended (a re-delivered message).

    A job found `running` was started by a worker that died (its message came back because
    tasks are acknowledged late): results are only written at the end, so it restarts clean.
    """
    with transaction.atomic():
        job = TimingJob.objects.select_for_update().get(pk=job_id)
        if job.status in (TimingJob.Status.DONE, TimingJob.Status.FAILED):
            return None
        job.status = TimingJob.Status.RUNNING
        job.worker = worker
        job.started_at = timezone.now()
        job.attempts += 1
        job.progress_done = 0
        job.save(update_fields=["status", "worker", "started_at", "attempts", "progress_done"])
    return job


def do_run_timing_job(job_id: str, worker: str) -> str:
    """Run a queued job to the end and store its result; returns its final status."""
    job = _claim(job_id, worker)
    if job is None:
        return "skipped"

    def progress(done: int, total: int, label: str) -> None:
        TimingJob.objects.filter(pk=job.pk).update(progress_done=done, progress_total=total)

    options = dict(
        repeats=job.repeats,
        reference_folders=tuple(f for f in job.reference_folders.split(",") if f),
        on_progress=progress,
    )
    try:
        if job.kind == TimingJob.Kind.JITTER:
            result = jitter_package(
                Path(job.package_dir),
                job.source,
                job.language,
                modes=tuple(job.modes.split(",")),
                remeasure=job.remeasure,
                **options,
            )
        else:
            result = measure_package(
                Path(job.package_dir), job.source, job.language, mode=job.modes, **options
            )
    except Exception as exc:  # the job records why it failed; the worker goes on
        TimingJob.objects.filter(pk=job.pk).update(
            status=TimingJob.Status.FAILED,
            error=f"{type(exc).__name__}: {exc}",
            finished_at=timezone.now(),
        )
        return TimingJob.Status.FAILED
    TimingJob.objects.filter(pk=job.pk).update(
        status=TimingJob.Status.DONE,
        result=result,
        finished_at=timezone.now(),
        progress_done=F("progress_total"),
    )
    return TimingJob.Status.DONE
