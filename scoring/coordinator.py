"""Scoring on the timing workers: a training step's (or an API request's) programs in a
ScoringJob row, scored by the `scoring.score_rollouts` task, the scores picked up by the
trainer.

The job's groups are spread over the timing workers: the task that takes the job (the
coordinator) stores one ScoringPart per group, offers every part but the first to the queue
(`scoring.score_part`), and then scores parts itself until none is left queued; an idle
worker that takes a part's message scores it meanwhile. Each part is claimed by an atomic
update, so a part is scored once however many messages name it; a part left running by a
worker that stopped beating (workers/process/heartbeat.py) is taken over. The coordinator
assembles the result in the order sent, once every part is done."""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

from django.utils import timezone

from execution.degraded import DegradedTiming
from execution.isolation import SandboxError, active_isolation
from execution.retries import counted
from foundation import sending
from foundation.jobs import (
    SANDBOX_FAILURE_PREFIX,
    JobStatus,
    Progress,
    claim,
    failed_in_sandbox,
    failure_recorded,
    finish,
)
from foundation.liveness import WorkerHeartbeat
from foundation.sending import enqueue
from rewards.engine import RewardConfig
from rewards.runtimes import loaded_problems
from scoring.calibration import host_fitness
from scoring.models import ScoringJob, ScoringPart
from scoring.problems import scoring_problem
from scoring.record import record_api_job
from scoring.scorer import Score, score_group_retrying

log = logging.getLogger(__name__)
_SCORING_FOLDER: Path | None = None
PART_TAKEOVER_S = 15.0
"""A part running this long on a worker with no heartbeat as recent is taken over (three
heartbeats missed: the worker or its host is gone)."""
PART_POLL_S = 0.1
"""How often the coordinator looks at parts other workers score."""
RESULT_POLL_S = 0.1
"""How often the trainer looks at its scoring job's row while it waits for the scores.

These waits read a row instead of waiting on a notification: the job row is the one result
store every deployment has (SQLite or PostgreSQL; Celery runs without a result backend, and
its database backend would poll too), and a look costs little against what it waits for
(benchmarks/scoring_waits.py, docs/benchmarks.md "Waiting on a scoring job")."""
REFUSED_RESEND_S = 2.0
"""The countdown of a scoring job a host refused (stale or unstable calibration), sent back
to the queue: other hosts take it meanwhile, and a lone unfit host does not spin on it."""


def _scoring_folder() -> Path:
    global _SCORING_FOLDER
    if _SCORING_FOLDER is None:  # one per worker process, kept: inputs are reused every step
        _SCORING_FOLDER = Path(tempfile.mkdtemp(prefix="codeopt-scoring-"))
    return _SCORING_FOLDER


def _problem(slug: str):
    """The scoring problem `slug`, its test inputs written under this process's folder."""
    folder = _scoring_folder() / slug
    folder.mkdir(exist_ok=True)
    (item,) = loaded_problems("", [slug])
    return scoring_problem(item, folder)[1]


def _open_parts(job: ScoringJob) -> list[int]:
    """One part per group of the job (made once; a failed one queued again: a retried job
    scores only what failed). Returns the indexes of the parts left queued."""
    for index in range(len(job.request["groups"])):
        ScoringPart.objects.get_or_create(job=job, index=index)
    job.parts.filter(status=JobStatus.FAILED).update(
        status=JobStatus.QUEUED, error="", finished_at=None
    )
    return list(job.parts.filter(status=JobStatus.QUEUED).values_list("index", flat=True))


def _scorer(worker: str) -> str:
    """A part's scorer: the worker's name, this process and this thread (the processes of a
    prefork worker share its name and its heartbeat; the threads of a threads pool share a
    process)."""
    return f"{worker}#{os.getpid()}:{threading.get_ident()}"


def _worker_gone(part: ScoringPart, worker: str) -> bool:
    """The part's scorer is gone: this thread (an earlier delivery here that ended), a
    process of this same worker that no longer runs (its message came back), or a worker
    that has not beaten for PART_TAKEOVER_S (nor has the part just started)."""
    name, sep, scorer = part.worker.rpartition("#")
    if not sep:
        name, scorer = part.worker, ""
    pid, _, thread = scorer.partition(":")
    if name == worker and pid.isdigit():
        if int(pid) == os.getpid():
            return thread == str(threading.get_ident())  # a sibling thread still scores
        return not _process_runs(int(pid))
    since = timezone.now() - timedelta(seconds=PART_TAKEOVER_S)
    if part.started_at is not None and part.started_at >= since:
        return False
    return not WorkerHeartbeat.objects.filter(hostname=name, last_seen__gte=since).exists()


def _process_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's: it runs
        return True
    return True


def _take(part: ScoringPart, worker: str) -> bool:
    """Claim `part` as it was read (queued, or running on a gone worker): an atomic update,
    so two workers never both win it."""
    won = ScoringPart.objects.filter(
        pk=part.pk, status=part.status, worker=part.worker, started_at=part.started_at
    ).update(status=JobStatus.RUNNING, worker=worker, started_at=timezone.now(), error="")
    return won == 1


def _score_part(job: ScoringJob, part: ScoringPart, worker: str = "") -> None:
    """Score the part's group and store it (a part done meanwhile by a taken-over worker
    keeps the first result), with the calibration factor of this host (`worker`) applied
    where the references are stored ones, and the request's deliberate timing degradation
    (`degraded_timing`, experiments) when it carries one. A failure is recorded on the
    part, then raised."""
    group = job.request["groups"][part.index]
    config = RewardConfig.from_dict(job.request["reward_config"])
    rows = ScoringPart.objects.filter(pk=part.pk)
    factor = host_fitness(worker).factor if worker else 1.0
    with failure_recorded(rows.exclude(status=JobStatus.DONE)), counted() as sandbox:
        scores = score_group_retrying(
            group["programs"],
            _problem(group["problem"]),
            config,
            step=job.step or 0,
            host_factor=factor,
            degraded=DegradedTiming.from_dict(job.request.get("degraded_timing")),
            group_index=part.index,
        )
    result = {
        "scores": [_score_dict(s) for s in scores],
        "sandbox": sandbox.as_dict(),
        "host_factor": scores[0].host_factor if scores else None,  # None: references re-measured
    }
    rows.exclude(status=JobStatus.DONE).update(
        status=JobStatus.DONE, result=result, finished_at=timezone.now()
    )


def _score_dict(s: Score) -> dict:
    return {
        "reward": s.reward,
        "verdict": s.verdict,
        "correct": s.correct,
        "speed_percentile": s.speed_percentile,
        "seconds": s.seconds,
        "rank_jitter": s.rank_jitter,
        "repeat_cv": s.repeat_cv,
        "sandbox_errors": s.sandbox_errors,
        "host_factor": s.host_factor,
    }


def _next_part(job: ScoringJob, worker: str) -> ScoringPart | None:
    """A part this worker has claimed (the lowest queued one, else one whose worker is
    gone), or None when every part is done, failed or running on a live worker."""
    for part in job.parts.exclude(status__in=[JobStatus.DONE, JobStatus.FAILED]):
        if part.status == JobStatus.QUEUED or _worker_gone(part, worker):
            if _take(part, _scorer(worker)):
                return part
    return None


def _raise_failed(part: ScoringPart) -> None:
    """A failed part fails its job: a sandbox failure as one (retryable), else by its error."""
    if part.error.startswith(SANDBOX_FAILURE_PREFIX):
        raise SandboxError(part.error[len(SANDBOX_FAILURE_PREFIX) :].strip())
    raise RuntimeError(f"group {part.index}: {part.error}")


def do_score_rollouts(job_id: int, worker: str = "") -> str:
    """The coordinator of a scoring job (module docstring): its parts scored here and by
    idle timing workers, the result stored on the job for the trainer, with the sandbox
    errors seen and which worker scored each group. A group still failing in the sandbox
    fails the job (its error starts SANDBOX_FAILURE_PREFIX: retryable), never a negative
    reward. A host whose calibration is stale or unstable refuses the job (`refuse`)."""
    unfit = host_fitness(worker).reason if worker else ""
    if unfit:
        return refuse(job_id, worker, unfit)
    job = claim(ScoringJob, job_id, worker, stage="scoring")
    if job is None:  # delivered again after it ended
        return ScoringJob.objects.get(pk=job_id).status
    with failure_recorded(ScoringJob.objects.filter(pk=job.pk)):
        queued = _open_parts(job)
        for index in queued[1:]:
            try:  # an offer only: a part no other worker takes is scored here
                enqueue("scoring.score_part", job.pk, index)
            except Exception as exc:  # the broker is unreachable: score the rest here
                log.warning("job %s: parts not offered (%s); scored here", job.pk, exc)
                break
        total = len(job.request["groups"])
        tracker = Progress(job, total=total)
        shown = None
        while True:
            done = job.parts.filter(status=JobStatus.DONE).count()
            if done != shown:  # the row is written when the count moves, not at every look
                tracker.set(done=done, stage=f"scoring {total} groups on the timing workers")
                shown = done
            failed = job.parts.filter(status=JobStatus.FAILED).first()
            if failed is not None:
                _raise_failed(failed)
            if done == total:
                break
            part = _next_part(job, worker)
            if part is not None:
                _score_part(job, part, worker)
            else:  # the rest run on other workers
                time.sleep(PART_POLL_S)
    parts = list(job.parts.order_by("index"))
    groups = [part.result["scores"] for part in parts]
    counts = [p.result["sandbox"] for p in parts]
    sandbox = {
        "isolation": active_isolation().kind,
        "errors": sum(c["errors"] for c in counts),
        "gave_up": sum(c["gave_up"] for c in counts),
        "last_error": next((c["last_error"] for c in reversed(counts) if c["last_error"]), ""),
    }
    result = {
        "groups": groups,
        "sandbox": sandbox,
        "workers": [p.worker for p in parts],
        "host_factors": [p.result.get("host_factor") for p in parts],  # per group, as applied
    }
    # (each "worker#pid:thread": which thread of which process of which worker scored it)
    if job.owner_id is not None:  # sent through the API: kinds, staleness, an external run's step
        result.update(record_api_job(job, groups))
    return finish(job, stage="done", result=result)


def do_score_part(job_id: int, index: int, worker: str = "") -> str:
    """An idle timing worker's share of a scoring job: part `index`, unless another worker
    has it (then nothing: its message was only an offer) or the job has ended."""
    part = ScoringPart.objects.select_related("job").filter(job_id=job_id, index=index).first()
    if part is None or part.job.status in (JobStatus.DONE, JobStatus.FAILED):
        return "ended"
    unfit = host_fitness(worker).reason if worker else ""
    if unfit:  # left queued: the coordinator, or another host's offer, scores it
        log.warning("%s refused part %s of scoring job %s: %s", worker, index, job_id, unfit)
        return f"refused: {unfit}"
    if part.status != JobStatus.QUEUED and not (
        part.status == JobStatus.RUNNING and _worker_gone(part, worker)
    ):
        return "taken"
    if not _take(part, _scorer(worker)):
        return "taken"
    _score_part(part.job, part, worker)
    return JobStatus.DONE


def refuse(job_id: int, worker: str, why: str) -> str:
    """Hand a scoring job this host must not score back to the queue: its row (still
    queued) says which host refused it and why, and its task is sent again to start
    REFUSED_RESEND_S later (a countdown: no worker slot waits meanwhile; sent before this
    delivery is acknowledged: never lost; `claim` skips any extra message, so never scored
    twice). A job that ended or runs elsewhere is left alone."""
    text = f"waiting for a calibrated host: {worker} refused it: {why}"[:200]
    waiting = ScoringJob.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(stage=text)
    log.warning("%s refused scoring job %s: %s", worker, job_id, why)
    if not waiting:
        return "refused"
    sending.send("scoring.score_rollouts", [job_id], None, countdown=REFUSED_RESEND_S)
    return "refused"


def scored_groups(result) -> list[list[dict]]:
    """The score dicts per group of a done ScoringJob's result ({"groups", "sandbox"}; a
    bare list in rows stored before the sandbox counts were)."""
    return result["groups"] if isinstance(result, dict) else result


class _PolledScores:
    """The trainer's handle on a scoring job: result() waits for the timing worker. A job
    that failed in the sandbox is waited for too, until the deadline: it can be retried
    (UI, API), and the trainer then goes on."""

    def __init__(self, job_id: int, timeout_s: float):
        self.job_id = job_id
        self.timeout_s = timeout_s

    def result(self):
        deadline = time.monotonic() + self.timeout_s
        while True:
            job = ScoringJob.objects.get(pk=self.job_id)
            if job.status == ScoringJob.Status.DONE:
                groups = scored_groups(job.result)
                return [[Score(costs=[], **score) for score in group] for group in groups]
            if job.status == ScoringJob.Status.FAILED and not failed_in_sandbox(job):
                raise RuntimeError(f"scoring job {job.pk} failed: {job.error}")
            if time.monotonic() > deadline:
                waiting = (
                    f"it failed in the sandbox and was not retried: {job.error}"
                    if failed_in_sandbox(job)
                    else "is a worker consuming the `timing` queue?"
                )
                raise TimeoutError(
                    f"scoring job {job.pk} not done after {self.timeout_s:g} s: {waiting}"
                )
            time.sleep(RESULT_POLL_S)


class TimingQueueScorer:
    """Scores on the timing workers (queue `timing`): each step's programs go in a ScoringJob
    row, the task fills in the scores, the trainer picks them up when it needs them."""

    def __init__(
        self, training, reward, timeout_s: float = 3600.0, degraded: DegradedTiming | None = None
    ):
        self.training = training
        self.reward = reward
        self.timeout_s = timeout_s
        self.degraded = degraded  # experiments: travels with each request to the workers

    def submit(self, step: int, batch) -> _PolledScores:
        request = {
            "reward_config": self.reward.as_dict(),
            "groups": [
                {"problem": problem.slug, "programs": [s.program for s in samples]}
                for problem, samples in batch
            ],
        }
        if self.degraded is not None and self.degraded.active:
            request["degraded_timing"] = self.degraded.as_dict()
        job = ScoringJob.objects.create(training=self.training, step=step, request=request)
        enqueue("scoring.score_rollouts", job.pk)
        return _PolledScores(job.pk, self.timeout_s)


def retry_scoring_job(job) -> int:
    queued = ScoringJob.objects.filter(pk=job.pk, status=ScoringJob.Status.FAILED).update(
        status=ScoringJob.Status.QUEUED, error="", finished_at=None
    )
    enqueue("scoring.score_rollouts", job.pk)
    return queued
