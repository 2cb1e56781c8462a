"""Timing jobs submitted as the Timing page submits them (timing/services.py)."""

from __future__ import annotations

from pathlib import Path

from execution.samples import MEDIUM
from timing import services as timing_services
from timing.models import TimingJob

MEASURE_JOB = {
    "source": MEDIUM,
    "language": "python",
    "modes": "cpu",
    "repeats": 1,
    "remeasure": 2,
    "kind": "measure",
}
"""The smallest valid measure job: one repeat of a sample program, timed by CPU time."""


def submit_timing_job(owner, package: Path | str, **changes) -> TimingJob:
    """MEASURE_JOB (or what `changes` make of it) on the package at `package`, checked and
    queued."""
    fields = {**MEASURE_JOB, "package_dir": str(package), **changes}
    return timing_services.do_submit_timing_job(owner, **fields)
