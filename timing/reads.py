"""Reads of timing's jobs for other floors: those waiting on the `timing` queue."""

from __future__ import annotations

from foundation.jobs import JobStatus
from foundation.queueing import QueuedJob, queued
from timing.models import TimingJob


def queued_timing_jobs(user, teams) -> list[QueuedJob]:
    """Timing jobs queued or running (queue `timing`; foundation.queueing): the user's own are
    named (staff: all)."""
    active = TimingJob.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
    return [
        queued(f"timing job ({job.kind})", job, user.is_staff or job.owner_id == user.pk)
        for job in active
    ]
