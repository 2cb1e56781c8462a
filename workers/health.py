"""Health of what the system depends on, for /healthz."""

from __future__ import annotations

import uuid
from datetime import timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.utils import timezone
from kombu import Connection

WORKER_SEEN_WITHIN = timedelta(seconds=30)


def check_database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return {"ok": True, "vendor": connection.vendor}


def check_broker() -> dict:
    url = settings.CELERY_BROKER_URL
    with Connection(url, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
    return {"ok": True, "transport": url.split("://", 1)[0]}


QUEUES = ("default", "timing")


def check_queues() -> dict:
    """Messages waiting per queue, and each worker's timing throughput over the last hour."""
    from workers.models import TimingJob

    depth = {}
    url = settings.CELERY_BROKER_URL
    with Connection(url, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        channel = conn.channel()
        for name in QUEUES:
            try:
                depth[name] = channel.queue_declare(queue=name, passive=True).message_count
            except Exception:  # a queue nobody declared yet holds nothing
                depth[name] = 0
    since = timezone.now() - timedelta(hours=1)
    per_worker: dict[str, list] = {}
    for job in TimingJob.objects.filter(finished_at__gte=since, status=TimingJob.Status.DONE):
        per_worker.setdefault(job.worker, []).append(job)
    throughput = []
    for worker, jobs in sorted(per_worker.items()):
        busy = sum(j.duration_s or 0 for j in jobs)
        executions = sum((j.result or {}).get("executions", 0) for j in jobs)
        rate = round(executions / busy, 2) if busy else None
        throughput.append({"worker": worker, "jobs": len(jobs), "executions_per_s": rate})
    waiting = TimingJob.objects.filter(status=TimingJob.Status.QUEUED).count()
    return {
        "ok": True,
        "depth": depth,
        "timing_jobs_waiting": waiting,
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
    from workers.models import WorkerHeartbeat

    since = timezone.now() - WORKER_SEEN_WITHIN
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


CHECKS = {
    "database": check_database,
    "broker": check_broker,
    "channel_layer": check_channel_layer,
    "workers": check_workers,
    "queues": check_queues,
}


def check_all() -> tuple[bool, dict]:
    """Run every check; healthy means all but `workers` pass (a web node may run alone)."""
    report = {}
    for name, check in CHECKS.items():
        try:
            report[name] = check()
        except Exception as exc:  # a failed check is reported, not raised
            report[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    healthy = all(report[name]["ok"] for name in ("database", "broker", "channel_layer"))
    return healthy, report
