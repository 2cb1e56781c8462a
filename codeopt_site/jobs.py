"""The seam for background jobs: what every job shares.

- `enqueue(task_name, *args)`: a Celery task by name, sent once the current transaction
  commits (the job's row is visible to the worker); its queue comes from CELERY_TASK_ROUTES
  unless given. Services never import task modules: each app's `tasks.py` (autodiscovered)
  imports its services, so no import runs from a service back to the tasks.
- `Job`: the row every job model inherits (status, stage, progress, worker, error,
  timestamps, the delivery that claimed it); `claim` marks one running (None when a
  re-delivered message finds it ended, or running under another delivery whose worker
  still beats),
  `Progress` reports on it, `failure_recorded` records a failure on it (status "failed",
  the error, when) before the exception goes on to fail the task, `finish` marks it done.
- `JobTask`: the Celery task class of every job: a job that loses its database goes back
  to the broker instead of being acknowledged and lost. A task that names its row's model
  (`job_model="app.Model"`, its one argument the row's pk) is sent again when the worker
  running it stops beating (workers/process/rescue.py). `job_task` declares one.
- `create_job`: a job's row from its checked request; `job_table_row`: what every page's
  table of jobs shows of one.
"""

from __future__ import annotations

import contextvars
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import fields as dataclass_fields
from datetime import timedelta

from celery import Task, shared_task
from celery.exceptions import Reject
from django.apps import apps as django_apps
from django.conf import settings
from django.db import (
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    models,
    transaction,
)
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from codeopt_site import startup
from codeopt_site.celery import app

log = logging.getLogger(__name__)


def enqueue(task_name: str, *args, queue: str | None = None) -> None:
    """Send `task_name`(*args) after the current transaction commits (at once outside one).
    With CELERY_TASK_ALWAYS_EAGER the task runs in this process instead."""
    transaction.on_commit(lambda: send(task_name, list(args), queue))


UNSENT = "not sent"
"""The stage of a queued job whose message the broker did not take: a worker's sweep sends
it once the broker answers again (workers/process/rescue.send_unsent)."""


def send(task_name: str, args: list, queue: str | None, *, countdown: float | None = None) -> None:
    """The one place a job reaches the broker (tests capture it: `enqueued`, tests/conftest).
    `countdown`: seconds before a worker may start it (the worker that receives it holds it
    meanwhile, with no pool slot taken).

    When the broker does not take the message, a job whose task names its row
    (`job_model`) stays queued, marked UNSENT with the reason, and is sent later: the request
    that made it succeeds, and the job is neither lost nor made twice by a client's retry.
    Any other task's failure is raised. Besides the broker's own errors, a publish on a
    connection the broker just dropped can fail inside kombu (an AttributeError on its pool,
    seen after a 10 s cut): that too is "not sent", and the pool is reset for the next send."""
    if settings.CELERY_TASK_ALWAYS_EAGER:  # send_task ignores eager mode
        app.tasks[task_name].apply(args=args)
        return
    options = {"queue": queue} if queue else {}
    if countdown:
        options["countdown"] = countdown
    try:
        app.send_task(task_name, args=args, **options)
    except Exception as exc:
        if not isinstance(exc, KombuOperationalError | OSError):
            log.warning("%s: publishing failed inside kombu (%r): pools reset", task_name, exc)
            _reset_broker_pools()
        app.loader.import_default_modules()  # the apps' tasks.py: a web process has none yet
        label = getattr(app.tasks.get(task_name), "job_model", "")
        if not label or len(args) != 1:
            raise
        why = f"{UNSENT}: the broker is unreachable ({startup.described(exc)})"
        log.error(
            "%s[%s] %s; a worker's sweep sends it when the broker answers", task_name, args[0], why
        )
        django_apps.get_model(label).objects.filter(pk=args[0], status=JobStatus.QUEUED).update(
            stage=why[:200], delivery_queue=queue or ""
        )


def _reset_broker_pools() -> None:
    """Drop this process's broker connections and producers (as Celery does after a fork):
    the next send makes new ones instead of reusing a connection kombu left half-closed."""
    from kombu import pools

    try:
        app.pool.force_close_all()
    except Exception:  # a pool that cannot even close is dropped with the rest
        pass
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


HAND_BACK_DELAY_S = 5.0
"""How long a job that lost its database waits before it goes back to the broker: the worker
tries the database that often instead of spinning on the same message."""


_delivery: contextvars.ContextVar[tuple[str, str]] = contextvars.ContextVar(
    "job_delivery", default=("", "")
)
"""(Celery task id, queue) of the delivery running in this thread (empty outside a task)."""


class JobTask(Task):
    """The task class of every job (`@shared_task(base=JobTask, ...)`): a job that loses its
    database (its claim, its progress or its result fails with no working connection left)
    is not acknowledged as done:

    1. a task acknowledged late (`acks_late`) rejects its message with requeue, after
       HAND_BACK_DELAY_S: the broker delivers it again, and its row, still queued (or left
       running: `claim` starts it over), is claimed once the database is back;
    2. a task acknowledged on receipt sends itself again, HAND_BACK_DELAY_S later, to the
       queue it came from.

    A database error on a connection that still answers (a query the database refused)
    fails the task as any error does; so does any error in eager mode or a direct call."""

    job_model = ""  # "app.Model" of the row the task's one argument names: rescued if set

    def __call__(self, *args, **kwargs):
        queue = (self.request.delivery_info or {}).get("routing_key") or ""
        token = _delivery.set((self.request.id or "", queue))
        try:
            return super().__call__(*args, **kwargs)
        except (OperationalError, InterfaceError) as exc:
            if self.request.is_eager or self.request.called_directly or _connection_answers():
                raise
            lost = startup.Unreachable(startup.DATABASE, startup.described(exc))
            raise self._hand_back(lost) from exc
        finally:
            _delivery.reset(token)

    def _hand_back(self, problem: startup.Unreachable) -> Exception:
        """The exception that returns this delivery to the broker (Reject or Retry)."""
        close_old_connections()  # the lost connection is not reused
        log.error(
            "%s[%s] handed back to the broker, again in %g s: %s",
            self.name,
            self.request.id,
            HAND_BACK_DELAY_S,
            problem,
        )
        if not self.acks_late:  # acknowledged already: sent again
            queue = (self.request.delivery_info or {}).get("routing_key")
            return self.retry(
                countdown=HAND_BACK_DELAY_S, max_retries=None, queue=queue, throw=False
            )
        time.sleep(HAND_BACK_DELAY_S)
        return Reject(str(problem), requeue=True)


def job_task(
    name: str, *, job_model: str = "", acked_at_end: bool = False, aliases: tuple[str, ...] = ()
):
    """The Celery decorator of a job's task (`@job_task("evaluations.evaluate", ...)`): bound
    (the task names its worker, `worker_name`), of class JobTask, `name` as the task routes
    and queued messages know it (its app's name, then the task's).

    - `aliases`: former names of the task, registered too, so that a message queued under
      one before an upgrade still runs (kept one release; nothing sends them: routes and
      rescue know the name only).
    - `job_model`: "app.Model" of the row its one argument names (JobTask.job_model).
    - `acked_at_end`: its message is acknowledged after the job ends, not when a worker takes
      it: a worker that dies mid-job hands the message back (`reject_on_worker_lost`) and the
      job starts over (`claim`); one that finished is not run twice. For jobs whose work dies
      with their worker (timing, training, scoring, evaluations)."""
    options = {"acks_late": True, "reject_on_worker_lost": True} if acked_at_end else {}

    def register(function):
        for alias in aliases:
            shared_task(bind=True, base=JobTask, name=alias, **options)(function)
        if job_model:
            options["job_model"] = job_model
        return shared_task(bind=True, base=JobTask, name=name, **options)(function)

    return register


def _connection_answers() -> bool:
    """This thread's database connection is open and runs a query: an error raised on it was
    the query's, not a lost database. (Every atomic block has been left, so a transaction the
    error aborted is rolled back.)"""
    return connection.connection is not None and connection.is_usable()


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


def remaining_s(done: float, total: float, elapsed_s: float) -> float | None:
    """Seconds until `total` at the rate `done` took `elapsed_s`; None before any progress
    (no rate yet) or without a total."""
    if done <= 0 or total <= 0 or elapsed_s < 0:
        return None
    return max(0.0, elapsed_s * (total - done) / done)


def progress_text(stage: str, done: int, total: int, remaining: float | None) -> str:
    """A stage as pages say it: "warm start 120/300, about 2 min left"."""
    parts = [" ".join(p for p in (stage, f"{done}/{total}" if total else "") if p)]
    if remaining is not None:
        parts.append(f"{about(remaining)} left")
    return ", ".join(p for p in parts if p)


def about(seconds: float | None) -> str:
    """A page's estimate, "about 40 s", "about 3 min" or "about 1 h 20 min"; "" for None."""
    if seconds is None:
        return ""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"about {max(seconds, 1)} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h" + (f" {minutes} min" if minutes else "")


def worker_name(task) -> str:
    """The name a job row records for the worker running bound Celery `task`."""
    return task.request.hostname or socket.gethostname()


def worker_dead_after() -> timedelta:
    """A worker whose heartbeat (workers/process/heartbeat.py, at most every 5 s) is this old
    is gone: its running jobs are sent again (workers/process/rescue.py). 30 s unless
    CODEOPT_WORKER_DEAD_AFTER_S says otherwise (the same on every host)."""
    return timedelta(seconds=settings.CODEOPT_WORKER_DEAD_AFTER_S)


def worker_alive(hostname: str, since, now=None) -> bool:
    """`hostname` beat within worker_dead_after() and has not restarted since `since` (a
    restarted worker beats again under its old name, but what ran in it died)."""
    # by name: workers.models imports this module (every job model inherits Job)
    heartbeats = django_apps.get_model("workers", "WorkerHeartbeat").objects
    now = now or timezone.now()
    beat = heartbeats.filter(hostname=hostname).first()
    if beat is None or beat.last_seen < now - worker_dead_after():
        return False
    return beat.booted_at is None or since is None or beat.booted_at <= since


def heartbeats() -> dict[str, tuple]:
    """{worker: (last seen, booted at)} of every worker that ever beat."""
    rows = django_apps.get_model("workers", "WorkerHeartbeat").objects
    return {
        row.hostname: (row.last_seen, row.booted_at)
        for row in rows.only("hostname", "last_seen", "booted_at")
    }


def gone_why(worker: str, started_at, beats: dict[str, tuple], now) -> str:
    """Why the worker that started a job at `started_at` no longer runs it; "" if it may, or
    if `worker` never beat: no Celery worker (a command running a job in the foreground,
    `manage.py evaluate` as "cli"), not one to judge by heartbeats."""
    if worker not in beats:
        return ""
    last_seen, booted_at = beats[worker]
    if last_seen < now - worker_dead_after():
        return f"worker {worker} stopped beating {(now - last_seen).total_seconds():.0f} s ago"
    if booted_at is not None and started_at is not None and booted_at > started_at:
        return f"worker {worker} restarted after the job started"
    return ""


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
    delivery, queue = _delivery.get()
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
