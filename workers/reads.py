"""Reads across every kind of job the workers run: the jobs a user can see, by kind, and those
that failed in the sandbox (the Timing page's retry table, /api/sandbox-failures/)."""

from __future__ import annotations

from django.urls import reverse

from evaluations.reads import visible_evaluations
from foundation.jobs import SANDBOX_FAILURE_PREFIX
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
