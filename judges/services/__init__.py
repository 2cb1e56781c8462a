"""Judging services, by domain: requests (the pairs of an evaluation or a file, checked) and
batches (stored, judged, corrected). The judges themselves are plain Python: judges.analyzer
and judges.llm."""

from __future__ import annotations

from judges.services.batches import (
    do_create_batch,
    do_label,
    do_run_batch,
)
from judges.services.requests import (
    DEFAULT_TIE_BAND,
    JUDGES,
    JudgeRequest,
    PairInput,
    check_judge_request,
    first_per_category,
    pair_kind,
    pairs_from_evaluation,
    parse_pairs_file,
)

__all__ = [
    "JUDGES",
    "DEFAULT_TIE_BAND",
    "PairInput",
    "JudgeRequest",
    "pair_kind",
    "pairs_from_evaluation",
    "parse_pairs_file",
    "check_judge_request",
    "first_per_category",
    "do_create_batch",
    "do_run_batch",
    "do_label",
]
