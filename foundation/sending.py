"""Jobs reach the broker here, and come back from it.

- `enqueue(task_name, *args)`: a Celery task by name, sent once the current transaction
  commits (the job's row is visible to the worker); its queue comes from CELERY_TASK_ROUTES
  unless given. Services never import task modules: each app's `tasks.py` (autodiscovered)
  imports its services, so no import runs from a service back to the tasks.
- `send`: the one place a message is published; a job the broker does not take stays
  queued, marked UNSENT, for a worker's sweep to send later.
- `JobTask`: the Celery task class of every job: a job that loses its database goes back
  to the broker instead of being acknowledged and lost. A task that names its row's model
  (`job_model="app.Model"`, its one argument the row's pk) is sent again when the worker
  running it stops beating (workers/process/rescue.py). `job_task` declares one.

It sends through `celery.current_app`: codeopt_site.celery's app, made current when Django
loads the project's settings, so this floor imports no package above it.
"""

from __future__ import annotations

import logging
import socket
import time

from celery import Task, shared_task
from celery import current_app as app
from celery.exceptions import Reject
from django.apps import apps as django_apps
from django.conf import settings
from django.db import (
    InterfaceError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)
from kombu.exceptions import OperationalError as KombuOperationalError

from foundation import startup
from foundation.jobs import JobStatus, current_delivery

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
        token = current_delivery.set((self.request.id or "", queue))
        try:
            return super().__call__(*args, **kwargs)
        except (OperationalError, InterfaceError) as exc:
            if self.request.is_eager or self.request.called_directly or _connection_answers():
                raise
            lost = startup.Unreachable(startup.DATABASE, startup.described(exc))
            raise self._hand_back(lost) from exc
        finally:
            current_delivery.reset(token)

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


def worker_name(task) -> str:
    """The name a job row records for the worker running bound Celery `task`."""
    return task.request.hostname or socket.gethostname()
