"""Jobs of a worker that died are sent again, within a minute, by the workers still alive.

A job's message is acknowledged late: a worker process that dies hands it back at once
(`reject_on_worker_lost`), and on RabbitMQ a whole worker that dies does too (its
connection closes). On Redis the message of a worker killed whole comes back only after the
broker's visibility timeout (CELERY_VISIBILITY_TIMEOUT_S, a day by default), and a job
acknowledged on receipt never comes back: without this, its row stays `running` under the
dead worker's name. So every live worker, on each heartbeat (workers/process/heartbeat.py),
looks for

1. job rows (the models of the tasks that name one, `JobTask.job_model`) running on a worker
   that has not beaten for `worker_dead_after()`, or has restarted since the job started (a
   name that never beat is a foreground command's, left alone):
   the row goes back to `queued`, saying so, and its task is sent again;
2. running training runs whose lease (beaten by the trainer every LEASE_BEAT_S) is older
   than LEASE_STALE_S: the lease is cleared and `training.train` sent again; the run resumes
   from its newest checkpoint.

Each row is taken back by one conditional update (same status, worker and start), so of
several sweeping workers exactly one sends it. A message the broker hands back later finds
the row ended, or running under another delivery on a live worker, and does nothing
(foundation.jobs.claim, training.lease.claim_training).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from datetime import timedelta

from django.apps import apps as django_apps
from django.utils import timezone

from foundation import sending
from foundation.jobs import JobStatus
from foundation.liveness import gone_why, heartbeats, worker_dead_after
from runs.models import RunStatus
from training.lease import LEASE_STALE_S
from training.models import TrainingRun

log = logging.getLogger(__name__)


def _job_tasks(celery_app) -> list[tuple[type, str]]:
    """(model, task name) of every registered task that names its row's model (the apps'
    task modules are imported first, as Celery's autodiscovery does in a worker: another
    process may not have them yet; in a worker the imports are no-ops)."""
    for config in django_apps.get_app_configs():
        if importlib.util.find_spec(f"{config.name}.tasks") is not None:
            importlib.import_module(f"{config.name}.tasks")
    found = []
    for name, task in sorted(celery_app.tasks.items()):
        label = getattr(task, "job_model", "")
        if label:
            found.append((django_apps.get_model(label), name))
    return found


def sweep(celery_app, me: str = "", now=None) -> list[str]:
    """Send again the jobs and training runs of dead workers; what was sent, as
    "<task>[<pk>]: <why>" (also logged)."""
    now = now or timezone.now()
    beats = heartbeats()
    sent = []
    for model, task_name in _job_tasks(celery_app):
        running = model.objects.filter(
            status=JobStatus.RUNNING, started_at__lt=now - worker_dead_after()
        ).exclude(worker="")
        for job in running:
            pk, worker, started_at = job.pk, job.worker, job.started_at
            why = gone_why(worker, started_at, beats, now)
            if not why:
                continue
            taken = model.objects.filter(
                pk=pk, status=JobStatus.RUNNING, worker=worker, started_at=started_at
            ).update(
                status=JobStatus.QUEUED,
                stage=f"sent again: {why}"[:200],
                worker="",
                delivery="",
            )
            if taken:  # back to the queue its delivery came from (an evaluation: gpu or timing)
                queue = job.delivery_queue or None
                sending.send(task_name, [pk if isinstance(pk, int) else str(pk)], queue)
                sent.append(f"{task_name}[{pk}]: {why}")
    sent += _rescue_training(now)
    sent += send_unsent(celery_app)
    for line in sent:
        log.warning("rescued by %s: %s", me or "this worker", line)
    return sent


def send_unsent(celery_app) -> list[str]:
    """Send the queued jobs the broker did not take when they were made (sending.UNSENT); a job
    whose send fails again is marked again by sending.send. One sweep takes each (the update
    that clears the mark), so two workers sweeping at once do not both send it."""
    sent = []
    for model, task_name in _job_tasks(celery_app):
        marked = model.objects.filter(status=JobStatus.QUEUED, stage__startswith=sending.UNSENT)
        for pk, stage, queue in marked.values_list("pk", "stage", "delivery_queue"):
            taken = model.objects.filter(pk=pk, status=JobStatus.QUEUED, stage=stage).update(
                stage="sent once the broker answered again"
            )
            if taken:
                sending.send(task_name, [pk if isinstance(pk, int) else str(pk)], queue or None)
                sent.append(f"{task_name}[{pk}]: {stage}")
    return sent


def _rescue_training(now) -> list[str]:
    stale = now - timedelta(seconds=LEASE_STALE_S)
    sent = []
    rows = TrainingRun.objects.exclude(lease="").filter(
        heartbeat_at__lt=stale, run__status=RunStatus.RUNNING
    )
    for pk, run_id, token, beaten in rows.values_list("pk", "run_id", "lease", "heartbeat_at"):
        why = f"its trainer {token} stopped beating {(now - beaten).total_seconds():.0f} s ago"
        taken = TrainingRun.objects.filter(pk=pk, lease=token).update(
            lease="",
            heartbeat_at=None,
            stage=f"sent again: {why}"[:200],
            stage_ends_at=None,
            progress_share=None,
        )
        if taken:
            sending.send("training.train", [run_id], None)
            sent.append(f"training.train[{run_id}]: {why}")
    return sent
