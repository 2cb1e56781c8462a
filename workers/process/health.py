"""Health of what the system depends on, for /healthz.

`check_all` runs the checks; `status` ("ok", "degraded", "down") is what anyone may see,
the rest (versions, worker hostnames, queue depths, the sandbox's set-up, error texts) is for
signed-in users (codeopt_site.views.healthz). Error texts have every password masked.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.utils import timezone
from kombu import Connection

from evaluations.models import Evaluation
from execution.isolation import active_isolation
from execution.retries import PROCESS_COUNTS
from foundation.broker import transport_for
from foundation.env import redact
from foundation.jobs import SANDBOX_FAILURE_PREFIX
from foundation.liveness import WorkerHeartbeat, worker_dead_after
from foundation.startup import reach_broker
from problems.models import DatasetBuild
from scoring import calibration
from scoring.models import ScoringJob, ScoringPart
from timing.models import TimingJob


def check_database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"ok": True, "vendor": connection.vendor}


def check_broker() -> dict:
    return {"ok": True, "transport": reach_broker(timeout_s=2)}


QUEUES = ("default", "timing")


def check_queues() -> dict:
    """Messages waiting per queue, the timing jobs and scoring groups waiting, and each
    timing worker's work finished over the last hour: timing jobs (with their executions per
    busy second), scoring groups (ScoringPart: the API's and the trainers' scoring) and
    dataset builds."""

    depth = {}
    url = settings.CELERY_BROKER_URL
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    with Connection(url, transport=transport_for(url), transport_options=options) as conn:
        channel = conn.channel()
        for name in QUEUES:
            try:
                depth[name] = channel.queue_declare(queue=name, passive=True).message_count
            except Exception:  # a queue nobody declared yet holds nothing
                depth[name] = 0
    since = timezone.now() - timedelta(hours=1)
    per_worker: dict[str, dict] = {}

    def entry(worker: str) -> dict:
        host = worker.split("#", 1)[0]  # a scoring part names its scorer after "#"
        blank = {"worker": host, "jobs": 0, "scoring_groups": 0, "builds": 0, "busy_s": 0.0}
        blank["executions"] = 0
        return per_worker.setdefault(host, blank)

    for job in TimingJob.objects.filter(finished_at__gte=since, status=TimingJob.Status.DONE):
        row = entry(job.worker)
        row["jobs"] += 1
        row["timing_busy_s"] = row.get("timing_busy_s", 0.0) + (job.duration_s or 0)
        row["executions"] += (job.result or {}).get("executions", 0)
    for part in ScoringPart.objects.filter(finished_at__gte=since, status="done"):
        row = entry(part.worker)
        row["scoring_groups"] += 1
        row["busy_s"] += part.duration_s or 0
    for build in DatasetBuild.objects.filter(finished_at__gte=since, status="done"):
        row = entry(build.worker)
        row["builds"] += 1
        row["busy_s"] += build.duration_s or 0
    throughput = []
    for _, row in sorted(per_worker.items()):
        timing_busy = row.pop("timing_busy_s", 0.0)
        executions = row.pop("executions")
        row["executions_per_s"] = round(executions / timing_busy, 2) if timing_busy else None
        row["busy_s"] = round(row["busy_s"] + timing_busy, 1)
        throughput.append(row)
    return {
        "ok": True,
        "depth": depth,
        "timing_jobs_waiting": TimingJob.objects.filter(status=TimingJob.Status.QUEUED).count(),
        "scoring_groups_waiting": ScoringPart.objects.filter(status="queued").count(),
        "timing_workers": throughput,
    }


def check_channel_layer() -> dict:
    layer = get_channel_layer()

    async def round_trip() -> bool:
        channel = await layer.new_channel()
        token = uuid.uuid4().hex
        await layer.send(channel, {"type": "health.check", "token": token})
        message = await layer.receive(channel)
        return message.get("token") == token

    ok = async_to_sync(round_trip)()
    return {"ok": ok, "backend": type(layer).__name__}


def check_workers() -> dict:
    since = timezone.now() - worker_dead_after()  # listed until it counts as dead
    seen = WorkerHeartbeat.objects.filter(last_seen__gte=since).order_by("hostname")
    workers = [
        {
            "hostname": w.hostname,
            "queues": w.queues.split(","),
            "last_seen": w.last_seen.isoformat(),
        }
        for w in seen
    ]
    return {"ok": bool(workers), "seen": workers}


SANDBOX_WINDOW = timedelta(hours=1)


def check_sandbox() -> dict:
    """The isolation in force on this host (execution.isolation) and the sandbox
    errors of the last hour: the failed starts stored on the jobs that ended in it (timing,
    scoring, evaluations) and the jobs that failed in the sandbox. "degraded" when those
    errors pass settings.SANDBOX_ERRORS_DEGRADED or a job failed so.

    Each job stores the mechanism of the worker that ran it: `workers` lists them, since
    the host answering /healthz need not be a worker's."""

    since = timezone.now() - SANDBOX_WINDOW
    errors, failed, workers = 0, 0, {}
    for model, stored in ((TimingJob, "result"), (ScoringJob, "result"), (Evaluation, "results")):
        recent = model.objects.filter(finished_at__gte=since)
        keys = (f"{stored}__sandbox__errors", f"{stored}__sandbox__isolation", "worker")
        for count, isolation, worker in recent.values_list(*keys):
            if isolation is not None:
                errors += count or 0
                workers[worker or "?"] = isolation
        failed += recent.filter(status="failed", error__startswith=SANDBOX_FAILURE_PREFIX).count()
    threshold = settings.SANDBOX_ERRORS_DEGRADED
    return {
        "ok": True,
        "status": "degraded" if errors > threshold or failed else "ok",
        **active_isolation().describe(),
        "errors_last_hour": errors,
        "jobs_failed_last_hour": failed,
        "degraded_above": threshold,
        "errors_in_this_process": PROCESS_COUNTS.errors,
        "workers": workers,
    }


STATUS_CHECKS = {
    "database": check_database,
    "broker": check_broker,
    "channel_layer": check_channel_layer,
    "sandbox": check_sandbox,
}
"""The checks `status` is made of."""


def check_calibration() -> dict:
    """Per timing host: its calibration factor (host / baseline anchor CPU time, a ratio),
    its age in seconds, its spread (max / min of the per-anchor ratios) and why it refuses
    scoring work, if it does (scoring/calibration.py)."""

    return calibration.describe()


DETAIL_CHECKS = {"workers": check_workers, "queues": check_queues, "calibration": check_calibration}
"""Checks that only add details."""


def configured_urls() -> tuple[str, ...]:
    """The service URLs from the settings, whose passwords no report may show."""
    names = ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "CELERY_RESULT_BACKEND")
    return tuple(getattr(settings, name, None) or "" for name in names)


def check_all(details: bool = True) -> tuple[bool, dict]:
    """Run the checks (DETAIL_CHECKS too with `details`); healthy means the database, the
    broker and the channel layer pass (a web node may run without workers). `status` says
    "down" when not healthy, "degraded" when the sandbox check says so."""
    checks = {**STATUS_CHECKS, **(DETAIL_CHECKS if details else {})}
    report = {}
    for name, check in checks.items():
        try:
            report[name] = check()
        except Exception as exc:  # a failed check is reported, not raised
            error = redact(f"{type(exc).__name__}: {exc}", *configured_urls())
            report[name] = {"ok": False, "error": error}
    healthy = all(report[name]["ok"] for name in ("database", "broker", "channel_layer"))
    degraded = report["sandbox"].get("status") == "degraded"
    report["status"] = "down" if not healthy else "degraded" if degraded else "ok"
    return healthy, report
