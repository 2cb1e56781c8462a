"""Jobs that failed in the sandbox, retried from the Timing page or the API: one dispatcher
over each app's retry (only the pages and the API import it)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction

from evaluations.services import do_retry_evaluation
from foundation.jobs import failed_in_sandbox
from scoring.coordinator import retry_scoring_job
from timing.services import retry_timing_job
from workers.reads import JOB_KINDS, visible_jobs

RETRIES = {
    "timing": retry_timing_job,
    "scoring": retry_scoring_job,
    "evaluation": do_retry_evaluation,
}
"""What retrying each kind of job does: back to `queued`, queued again once committed."""


def do_retry_job(user, kind: str, pk) -> None:
    """Queue again a job that failed in the sandbox (foundation.jobs.failed_in_sandbox).
    LookupError when the user cannot see such a job, ValueError when it is not retryable."""
    if kind not in JOB_KINDS:
        raise LookupError(f"kind: {kind!r} is not one of {', '.join(JOB_KINDS)}")
    try:
        job = visible_jobs(user, kind).filter(pk=pk).first()
    except (ValueError, DjangoValidationError):  # not an id of that kind (a UUID, a number)
        job = None
    if job is None:
        raise LookupError(f"no {kind} job {pk} you can see")
    with transaction.atomic():
        # only from `failed`: a second click while the first retry runs queues nothing
        if not failed_in_sandbox(job) or not RETRIES[kind](job):
            raise ValueError(f"{kind} job {pk} did not fail in the sandbox ({job.status})")
