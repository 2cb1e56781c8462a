"""Scoring's services, by domain: jobs (a request checked field by field, stored and queued on
`timing`, and answered) and gathering (samples sent one at a time, as verl's reward loop and
OpenRLHF's remote reward send them, gathered into their group before one job scores it)."""

from __future__ import annotations

from scoring.services.gathering import (
    GatherFailed,
    check_gather_request,
    do_gather,
    do_score_gathered,
    gathered_answer,
    samples_of,
)
from scoring.services.jobs import (
    DEFAULT_TIE_BAND,
    EXTERNAL,
    RunNotFound,
    TooManyInFlight,
    check_scoring_request,
    do_submit_scoring,
    external_training,
    queued_scoring_jobs,
    scoring_answer,
    visible_scoring_jobs,
    wait_for_job,
)

__all__ = [
    "DEFAULT_TIE_BAND",
    "EXTERNAL",
    "GatherFailed",
    "RunNotFound",
    "TooManyInFlight",
    "check_gather_request",
    "check_scoring_request",
    "do_gather",
    "do_score_gathered",
    "do_submit_scoring",
    "external_training",
    "gathered_answer",
    "queued_scoring_jobs",
    "samples_of",
    "scoring_answer",
    "visible_scoring_jobs",
    "wait_for_job",
]
