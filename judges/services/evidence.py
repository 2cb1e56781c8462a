"""Evidence for a batch's pairs: each pair measured on its problem's generator in the sandbox
(judges/evidence.py), stored with the pair, reused for a pair of the same content."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed

from django.conf import settings as django_settings

from judges.evidence import METHOD, Evidence, measure_pair
from judges.models import JudgePair
from problems.models import InputGenerator

EVIDENCE_VERSION = "evidence-v1"
EVIDENCE_SEED = 1
"""One seed for every pair: the same pair on the same generator is measured the same."""


def generator_for(problem_slug: str) -> InputGenerator | None:
    """The generator the pair is measured on: the problem's valid (or never validated)
    generator, a worst-case one first (by name), then by name."""
    found = list(
        InputGenerator.objects.filter(problem__slug=problem_slug)
        .exclude(valid=False)
        .exclude(code="")
        .order_by("name")
    )
    if not found:
        return None
    return sorted(found, key=lambda g: (not g.name.startswith("worst"), g.name))[0]


def evidence_key(pair: JudgePair, generator: InputGenerator) -> str:
    text = json.dumps(
        [EVIDENCE_VERSION, METHOD, pair.baseline, pair.optimized, generator.code, EVIDENCE_SEED]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def measure_evidence(
    pairs: list[JudgePair],
    advance: Callable[[str], None],
    concurrency: int | None = None,
    measure: Callable[..., Evidence] = measure_pair,
) -> None:
    """Evidence for each pair, stored on it (`evidence`, or `evidence_note` saying why there
    is none); `advance` is called once per pair. A pair measured before with the same
    programs and generator takes that evidence again."""
    concurrency = concurrency or django_settings.CODEOPT_EVIDENCE_CONCURRENCY
    waiting: list[tuple[JudgePair, InputGenerator]] = []
    for pair in pairs:
        generator = generator_for(pair.problem_slug)
        if generator is None:
            pair.evidence = None
            pair.evidence_note = (f"no problem {pair.problem_slug!r} with an input generator here")[
                :300
            ]
            pair.save(update_fields=["evidence", "evidence_note"])
            advance(f"evidence: {pair.problem_slug} (no generator)")
            continue
        pair.evidence_key = evidence_key(pair, generator)
        earlier = (
            JudgePair.objects.filter(evidence_key=pair.evidence_key, evidence__isnull=False)
            .exclude(pk=pair.pk)
            .values_list("evidence", flat=True)
            .first()
        )
        if earlier is not None:
            pair.evidence, pair.evidence_note = earlier, "measured before (same programs)"
            pair.save(update_fields=["evidence", "evidence_note", "evidence_key"])
            advance(f"evidence: {pair.problem_slug} (measured before)")
            continue
        waiting.append((pair, generator))

    def one(item: tuple[JudgePair, InputGenerator]) -> Evidence:
        pair, generator = item
        return measure(
            pair.baseline,
            pair.optimized,
            generator.code,
            generator=generator.name,
            seed=EVIDENCE_SEED,
        )

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = {pool.submit(one, item): item[0] for item in waiting}
        for future in as_completed(futures):
            pair = futures[future]
            evidence = future.result()
            if evidence.measured:
                pair.evidence, pair.evidence_note = evidence.as_dict(), evidence.note[:300]
            else:
                pair.evidence, pair.evidence_note = None, f"not measured: {evidence.note}"[:300]
            pair.save(update_fields=["evidence", "evidence_note", "evidence_key"])
            advance(f"evidence: {pair.problem_slug}")
