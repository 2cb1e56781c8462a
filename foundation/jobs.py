"""The row every background job shares, and its life on it.

- `Job`: the row every job model inherits (status, stage, progress, worker, error,
  timestamps, the delivery that claimed it); `create_job` makes one from its checked request.
- `claim` marks one running (None when a re-delivered message finds it ended, or running
  under another delivery whose worker still beats), `Progress` reports on it,
  `failure_recorded` records a failure on it (status "failed", the error, when) before the
  exception goes on to fail the task, `finish` marks it done.
- `shown_status`, `job_table_row`: what every page's table of jobs shows of one (a job
  whose worker died is "lost").

Sending a job and its task class: foundation/sending.py; which workers are alive:
foundation/liveness.py.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields as dataclass_fields

from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from foundation.liveness import gone_why, heartbeats, worker_alive
from foundation.progress import progress_text, remaining_s

log = logging.getLogger(__name__)

current_delivery: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar(
    "job_delivery", default=("", "")
)
"""(Celery task id, queue) of the delivery running in this thread (empty outside a task)."""


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class Job(models.Model):
    """The row shape of every background job (timing, scoring, builds, simulations,
    evaluations, judge batches): subclasses add what the job takes and gives."""

    Status = JobStatus
    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    stage = models.CharField(max_length=200, blank=True, default="")
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=255, blank=True, default="")
    # the Celery task id of the delivery that claimed it: a second message for the same row
    # (a re-sent job whose first message the broker hands back later) tells itself apart
    delivery = models.CharField(max_length=64, blank=True, default="")
    # the queue that delivery came from: a job sent again goes back there
    delivery_queue = models.CharField(max_length=200, blank=True, default="")
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def progress(self) -> float:
        """Share done, 0 to 1 (1 once done, whatever was counted)."""
        if self.status == JobStatus.DONE:
            return 1.0
        return self.progress_done / self.progress_total if self.progress_total else 0.0

    @property
    def queue_wait_s(self) -> float | None:
        if self.started_at is None:
            return None
        return (self.started_at - self.created_at).total_seconds()

    @property
    def remaining_s(self) -> float | None:
        """Seconds left at the rate so far (progress over time since it started); None
        unless it runs and has counted some progress."""
        if self.status != JobStatus.RUNNING or self.started_at is None:
            return None
        elapsed = (timezone.now() - self.started_at).total_seconds()
        return remaining_s(self.progress_done, self.progress_total, elapsed)

    @property
    def progress_text(self) -> str:
        """Its stage, count and estimate ("generating 40/120, about 1 min left")."""
        return progress_text(self.stage, self.progress_done, self.progress_total, self.remaining_s)

    @property
    def duration_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


ENDED = (JobStatus.DONE, JobStatus.FAILED)


def create_job(model, request, **fields) -> Job:
    """A new row of job `model` holding every field of `request` (a checked request, a
    dataclass) that is one of the model's columns, with `fields` (owner, team ...) over them.
    The request's other fields (the rows that go to other tables) are the caller's to store.
    Precondition: `request` passed its check_* function, so its values fit the columns."""
    columns = {column.name for column in model._meta.concrete_fields}
    values = {f.name: getattr(request, f.name) for f in dataclass_fields(request)}
    stored = {name: value for name, value in values.items() if name in columns}
    return model.objects.create(**{**stored, **fields})


def shown_status(job, beats: dict[str, tuple] | None = None) -> tuple[str, str]:
    """(status, error) as a page shows `job`: a running job whose worker has gone silent or
    restarted is "lost", with why, until a live worker's sweep sends it again
    (workers/process/rescue.py). `beats`: heartbeats(), read once for a whole table."""
    status, error = job.status, job.error
    if status == JobStatus.RUNNING and job.worker:
        beats = heartbeats() if beats is None else beats
        lost = gone_why(job.worker, job.started_at, beats, timezone.now())
        if lost:
            return "lost", f"{lost}: a live worker sends it again"
    return status, error


def job_table_row(job: Job, beats: dict[str, tuple] | None = None) -> dict:
    """What every page's table of jobs shows of one (pages add the job's own figures): the
    status as shown (a dead worker's job is "lost", with why), progress and stage, the start
    of the error. `beats`: heartbeats(), read once for a whole table."""
    status, error = shown_status(job, beats)
    return {
        "id": job.pk,
        "created_at": job.created_at.isoformat(),
        "status": status,
        "progress": job.progress,
        "stage": job.stage,
        "error": error[:300],
    }


def claim(model, pk, worker: str = "", stage: str = "") -> Job | None:
    """Mark job `pk` of `model` running on `worker`; None when there is nothing to do: it
    ended (a re-delivered message), or another delivery runs it on a worker that still
    beats (the broker handed back the message of a job that was sent again when its worker
    stopped beating). A job found running otherwise was started by a worker that died
    (tasks are acknowledged late, so its message came back): results are written at the
    end only, so it starts over. Counts `attempts` where the model has them."""
    delivery, queue = current_delivery.get()
    with transaction.atomic():
        job = model.objects.select_for_update().get(pk=pk)
        if job.status in ENDED:
            return None
        if (
            job.status == JobStatus.RUNNING
            and job.delivery
            and delivery != job.delivery
            and worker_alive(job.worker, job.started_at)
        ):
            log.info("%s %s runs on %s (%s): skipped", model.__name__, pk, job.worker, job.delivery)
            return None
        fields = dict(
            status=JobStatus.RUNNING,
            worker=worker,
            delivery=delivery,
            delivery_queue=queue,
            started_at=timezone.now(),
            stage=stage,
            progress_done=0,
        )
        if hasattr(job, "attempts"):
            fields["attempts"] = job.attempts + 1
        for name, value in fields.items():
            setattr(job, name, value)
        job.save(update_fields=list(fields))
    return job


class Progress:
    """A running job's progress, on its row (pages poll it) and to `on_progress(done,
    total, stage)` when given (a command prints it)."""

    def __init__(self, job: Job, total: int | None = None, on_progress=None):
        self.job = job
        self.on_progress = on_progress
        self._lock = threading.Lock()  # judges report from their request threads
        if total is not None:
            self.set(0, total)

    def set(self, done: int | None = None, total: int | None = None, stage=None) -> None:
        """Each argument left None stays as it is."""
        with self._lock:
            self._set(done, total, stage)

    def _set(self, done, total, stage) -> None:
        fields = {}
        for name, value in (("progress_done", done), ("progress_total", total), ("stage", stage)):
            if value is not None:
                fields[name] = value[:200] if name == "stage" else value
                setattr(self.job, name, fields[name])
        if fields:
            type(self.job).objects.filter(pk=self.job.pk).update(**fields)
        if self.on_progress is not None:
            self.on_progress(self.job.progress_done, self.job.progress_total, self.job.stage)

    def stage(self, text: str) -> None:
        self.set(stage=text)

    def advance(self, by: int = 1, stage=None) -> None:
        with self._lock:
            self._set(self.job.progress_done + by, None, stage)


def finish(job: Job, **fields) -> str:
    """Mark the job done with its result `fields`; its progress full. Returns "done"."""
    type(job).objects.filter(pk=job.pk).update(
        status=JobStatus.DONE,
        finished_at=timezone.now(),
        progress_done=F("progress_total"),
        **fields,
    )
    return JobStatus.DONE


def fail(job: Job, error: str, **fields) -> str:
    """Mark the job failed with `error` (for a job that records its failure and goes on
    instead of raising). Returns "failed"."""
    return _mark_failed(type(job).objects.filter(pk=job.pk), error, **fields)


def _mark_failed(rows, error: str, **fields) -> str:
    rows.update(status=JobStatus.FAILED, error=error, finished_at=timezone.now(), **fields)
    return JobStatus.FAILED


@contextmanager
def failure_recorded(rows) -> Iterator[None]:
    """Run the job's work inside; an exception marks `rows` (a queryset of the job's row,
    a model with `status`, `error` and `finished_at`) failed, then propagates."""
    try:
        yield
    except Exception as exc:
        _mark_failed(rows, f"{type(exc).__name__}: {exc}")
        raise


SANDBOX_FAILURE_PREFIX = "SandboxError:"
"""How a job's error starts when the sandbox, not the work, failed (`failure_recorded` writes
the exception's class first): such a job can be retried (workers.retry.do_retry_job)."""


def failed_in_sandbox(row) -> bool:
    """The job (any job row) failed because the sandbox did: retrying it may succeed."""
    return row.status == "failed" and row.error.startswith(SANDBOX_FAILURE_PREFIX)
