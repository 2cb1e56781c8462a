"""Reads across every kind of job the workers run: the jobs a user can see, by kind, and those
that failed in the sandbox (the Timing page's retry table, /api/sandbox-failures/)."""

from __future__ import annotations

from django.urls import reverse

from evaluations.reads import visible_evaluations
from foundation.jobs import SANDBOX_FAILURE_PREFIX, JobStatus, failed_in_sandbox, shown_status
from foundation.liveness import heartbeats
from scoring.services import visible_scoring_jobs
from timing.models import TimingJob


def _timing_jobs(user):
    jobs = TimingJob.objects.select_related("owner")
    return jobs if user.is_staff else jobs.filter(owner=user)


def _scoring_jobs(user):
    return visible_scoring_jobs(user)


def _evaluations(user):
    return visible_evaluations(user)


def _scoring_label(job) -> str:
    if job.training_id is None:
        return f"scoring request {job.pk} of {job.owner.username}"
    return f"run {job.training.run_id}, step {job.step}"


JOB_KINDS = {
    "timing": (_timing_jobs, lambda j: f"{j.kind} {j.package_dir.rstrip('/').rsplit('/', 1)[-1]}"),
    "scoring": (_scoring_jobs, _scoring_label),
    "evaluation": (_evaluations, lambda j: f"evaluation {j.pk}: {j.name}"),
}
"""Each kind of job: (the rows a user can see, what the job is in a few words)."""


def visible_jobs(user, kind: str):
    """The user's jobs of one kind (JOB_KINDS): their own timing jobs (staff: all), the
    scoring jobs and evaluations of their teams."""
    return JOB_KINDS[kind][0](user)


SANDBOX_FAILURES_SHOWN = 50


def sandbox_failures(user) -> list[dict]:
    """Jobs the user can see that failed in the sandbox and can be retried, newest first."""
    rows = []
    for kind, (_, describe) in JOB_KINDS.items():
        failed = visible_jobs(user, kind).filter(
            status="failed", error__startswith=SANDBOX_FAILURE_PREFIX
        )
        for job in failed.order_by("-finished_at")[:SANDBOX_FAILURES_SHOWN]:
            rows.append(
                {
                    "kind": kind,
                    "id": str(job.pk),
                    "what": describe(job),
                    "error": job.error[:300],
                    "failed_at": job.finished_at.isoformat() if job.finished_at else None,
                    "retry_url": reverse("timing-retry", args=[kind, job.pk]),
                }
            )
    rows.sort(key=lambda r: r["failed_at"] or "", reverse=True)
    return rows[:SANDBOX_FAILURES_SHOWN]


TIMING_JOBS_SHOWN = 100
"""Rows of the Timing page's table of jobs (the API pages through them all)."""


def timing_jobs(user):
    """The timing jobs the Timing page lists: the user's own (staff: all), newest first."""
    return visible_jobs(user, "timing").order_by("-created_at", "-pk")


def timing_job_rows(jobs) -> list[dict]:
    """The jobs as the Timing page's table shows them (and /api/timing-jobs/), the workers'
    heartbeats read once, only when one of them runs."""
    jobs = list(jobs)
    beats = heartbeats() if any(j.status == JobStatus.RUNNING for j in jobs) else {}
    return [_timing_job_row(job, beats) for job in jobs]


def _timing_job_row(job: TimingJob, beats: dict) -> dict:
    """One job's row; a running job whose worker has gone silent shows as "lost" with why
    (foundation.jobs.shown_status), until a live worker's sweep sends it again
    (workers/process/rescue.py)."""
    result = job.result or {}
    status, error = shown_status(job, beats)
    row = {
        "id": str(job.id),
        "kind": job.kind,
        "owner": job.owner.username,
        "package": job.problem or job.package_dir.rstrip("/").rsplit("/", 1)[-1],
        "language": job.language,
        "modes": job.modes,
        "status": status,
        "progress_done": job.progress_done,
        "progress_total": job.progress_total,
        "attempts": job.attempts,
        "worker": job.worker,
        "created_at": job.created_at.isoformat(),
        "queue_wait_s": job.queue_wait_s,
        "duration_s": job.duration_s,
        "error": error[:300],
        "verdict": result.get("verdict"),
        "speed_percentile": result.get("speed_percentile"),
        "executions": result.get("executions"),
        "cpu_cvs": [t["cpu_cv"] for t in result.get("tests", []) if t.get("cpu_cv") is not None],
        "jitter": {m: v["jitter"] for m, v in result.get("modes", {}).items()},
        "sandbox_errors": (result.get("sandbox") or {}).get("errors"),
        "retry_url": (
            reverse("timing-retry", args=["timing", job.pk]) if failed_in_sandbox(job) else None
        ),
    }
    for mode_result in result.get("modes", {}).values():
        row["cpu_cvs"] += mode_result.get("cpu_cvs", [])
    return row
