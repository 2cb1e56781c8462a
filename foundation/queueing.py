"""What a queued job waits for: the jobs ahead of it on its Celery queue and the workers that
take that queue, read from the job rows and the workers' heartbeats (the broker is not asked:
the filesystem transport cannot say what it holds, and the rows say what each job is).

Ahead of a queued job: every job of its queue that runs now, then those queued before it
(a queue is first in, first out; CELERY_WORKER_PREFETCH_MULTIPLIER is 1). Which queue each
kind of job goes to follows CELERY_TASK_ROUTES (codeopt_site/settings.py). Jobs of teams the
user is not in are counted, never named.

Each app says which of its jobs wait on which queue: `register(queue, reader)` in its
AppConfig.ready(), a reader(user, teams) giving QueuedJob rows (`queued` makes one of a job
row). This floor reads no app's tables itself, and imports no model at its top (apps.py
modules import it before the models are ready).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from foundation.progress import about

SHOWN = 3  # jobs ahead named in the text; the rest are counted


@dataclass(frozen=True)
class QueuedJob:
    label: str  # "training run #5"
    state: str  # "running, warm start 120/300, about 2 min left" or "queued"
    running: bool
    created_at: datetime
    mine: bool  # the user may see it: named in the text
    left_s: float | None = None
    """Seconds until it ends: running, what is left of all of it (not of its stage); queued,
    how long it will take. None: not known (then a wait behind it is a lower bound)."""
    at_least: bool = False  # left_s is a lower bound (a later stage's length is not known)


Reader = Callable[[object, "set[int] | None"], list[QueuedJob]]
READERS: dict[str, list[Reader]] = {}
"""{queue: the readers of the jobs CELERY_TASK_ROUTES sends there}, filled by the apps."""


def register(queue: str, reader: Reader) -> None:
    """`reader(user, teams)` lists an app's jobs on `queue` (teams: the user's team ids, None
    for staff: `sees`)."""
    if reader not in READERS.setdefault(queue, []):
        READERS[queue].append(reader)


def team_ids(user) -> set[int] | None:
    """The user's team ids; None for staff (every team)."""
    from foundation.tenancy import user_teams  # a model: not at the top (module docstring)

    return None if user.is_staff else set(user_teams(user).values_list("pk", flat=True))


def sees(teams: set[int] | None, team_id: int | None) -> bool:
    return teams is None or team_id in teams


def queued(
    label: str,
    job,
    mine: bool,
    running: bool | None = None,
    created_at=None,
    left: tuple[float | None, bool] | None = None,
) -> QueuedJob:
    """The QueuedJob of a job row (a Job, or a row with `status`, `created_at` and
    `progress_text`): running with its progress, or queued. `running` and `created_at`
    override the row's (a training run's status and time are on its Run); `left` (seconds,
    at least) its time left, where the row's `remaining_s` (a running job's, at its rate so
    far) is not all of it."""
    if running is None:
        running = job.status == "running"
    state = (
        (f"running, {job.progress_text}" if job.progress_text else "running")
        if running
        else "queued"
    )
    if left is None:
        left = (getattr(job, "remaining_s", None) if running else None, False)
    return QueuedJob(label, state, running, created_at or job.created_at, mine, *left)


def workers_taking(queue: str) -> int:
    """Workers whose heartbeat is recent and who consume `queue`."""
    from foundation.liveness import WorkerHeartbeat, worker_dead_after  # a model (docstring)

    since = timezone.now() - worker_dead_after()
    seen = WorkerHeartbeat.objects.filter(last_seen__gte=since)
    return sum(queue in w.queues.split(",") for w in seen)


def _ordinal(number: int) -> str:
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    if 10 <= number % 100 <= 20:
        suffix = "th"
    return f"{number}{suffix}"


class Queues:
    """The jobs on each queue and the workers taking it, read once (per page) and asked
    about each queued job shown."""

    def __init__(self, user):
        self.user = user
        self._teams = team_ids(user)
        self._jobs: dict[str, list[QueuedJob]] = {}
        self._workers: dict[str, int] = {}

    def jobs_on(self, queue: str) -> list[QueuedJob]:
        if queue not in self._jobs:
            readers = READERS.get(queue, ())
            jobs = [job for reader in readers for job in reader(self.user, self._teams)]
            self._jobs[queue] = sorted(jobs, key=lambda j: (not j.running, j.created_at))
        return self._jobs[queue]

    def ahead_of(self, queue: str, label: str, created_at: datetime) -> list[QueuedJob]:
        """The jobs a queued job (`label`, queued at `created_at`) waits behind."""
        return [
            job
            for job in self.jobs_on(queue)
            if job.label != label and (job.running or job.created_at < created_at)
        ]

    def workers(self, queue: str) -> int:
        if queue not in self._workers:
            self._workers[queue] = workers_taking(queue)
        return self._workers[queue]

    def starts_in(self, queue: str, label: str, created_at: datetime) -> tuple[float, bool] | None:
        """(seconds until the queued job starts, whether that is a lower bound): the jobs
        ahead of it played out on the workers taking the queue, each running job for what is
        left of it, each queued one for how long it takes, a worker taking the next job in
        line as soon as it is free. A job ahead whose time is not known counts as none (the
        answer is then a lower bound). None while no worker takes the queue."""
        workers = self.workers(queue)
        if not workers:
            return None
        ahead = self.ahead_of(queue, label, created_at)

        def unknown(job: QueuedJob) -> bool:
            return job.left_s is None or job.at_least

        # each worker: (when it is free, whether that is a lower bound)
        free = [(job.left_s or 0.0, unknown(job)) for job in ahead if job.running]
        free += [(0.0, False)] * max(0, workers - len(free))
        heapq.heapify(free)
        for job in (job for job in ahead if not job.running):
            at, bound = free[0]
            heapq.heapreplace(free, (at + (job.left_s or 0.0), bound or unknown(job)))
        return free[0]

    def waiting_text(self, queue: str, label: str, created_at: datetime) -> str:
        """What the queued job waits for, e.g. 'queued on gpu behind training run #5
        (running, warm start 120/300, about 2 min left): 2nd in line; 1 worker takes gpu
        jobs; starts in about 17 min' (`starts_in`: all of what is ahead, not its stage)."""
        ahead = self.ahead_of(queue, label, created_at)
        named = [job for job in ahead if job.mine]
        parts = [f"{job.label} ({job.state})" for job in named[:SHOWN]]
        if len(named) > SHOWN:
            parts.append(f"{len(named) - SHOWN} more")
        others = len(ahead) - len(named)
        if others:
            parts.append(f"{others} job{'s' if others > 1 else ''} of other teams")
        if parts:
            behind = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
            text = f"queued on {queue} behind {behind}: {_ordinal(len(ahead) + 1)} in line"
        else:
            text = f"queued on {queue}: next in line"
        workers = self.workers(queue)
        if workers:
            text += f"; {workers} worker{'s take' if workers > 1 else ' takes'} {queue} jobs"
            wait, at_least = self.starts_in(queue, label, created_at)
            if ahead and at_least and wait < 1:
                text += "; no estimate yet of how long the jobs ahead take"
            elif ahead:
                text += f"; starts in {about(wait)}" + (" or more" if at_least else "")
        else:
            text += f"; no worker taking {queue} jobs has been seen lately: it starts once one runs"
        return text


def queue_of_task(task_name: str) -> str:
    """The queue CELERY_TASK_ROUTES sends `task_name` to ("default" when unrouted)."""
    return settings.CELERY_TASK_ROUTES.get(task_name, {}).get("queue", "default")
