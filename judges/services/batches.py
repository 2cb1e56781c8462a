"""Judge batches: store a request's pairs, run the judges on them (the Celery task's body),
store a person's correction."""

from __future__ import annotations

from django.db import transaction

from foundation.jobs import Progress, claim, create_job, failure_recorded, finish
from foundation.sending import enqueue
from judges.categories import UNCLEAR, check_category
from judges.decide import decide
from judges.evidence import Evidence
from judges.llm import LLMJudge, LLMResult, LLMSettings, PairText
from judges.models import JudgeBatch, JudgePair, Judgment
from judges.services.evidence import measure_evidence
from judges.services.requests import JudgeRequest, pair_kind


def do_create_batch(owner, team, request: JudgeRequest, queue: bool = True) -> JudgeBatch:
    """The batch and its pairs (each labelled faster / within noise / slower); with `queue`,
    the judging task goes to the `judge` queue once committed."""
    with transaction.atomic():
        batch = create_job(JudgeBatch, request, owner=owner, team=team, name=request.name[:200])
        JudgePair.objects.bulk_create(
            JudgePair(
                batch=batch,
                kind=pair_kind(p.baseline_s, p.optimized_s, request.tie_band),
                **p.__dict__,
            )
            for p in request.pairs
        )
        if queue:
            enqueue("judges.judge", batch.pk)
    return batch


def _store(pair: JudgePair, judge: str, **fields) -> None:
    Judgment.objects.update_or_create(pair=pair, judge=judge, defaults=fields)


def _store_llm(pair: JudgePair, model: str, key: str, result: LLMResult, cached: bool) -> None:
    """The LLM judge's verdict on `pair` and what it cost, stored under the pair's content
    key (`key`, PairText.content_key) by which a later pair of the same content reuses it;
    `cached`: `result` is such a reuse."""
    _store(
        pair,
        Judgment.Judge.LLM,
        category=result.category or "",
        secondary=result.secondary or "",
        rationale=result.rationale,
        confidence=result.confidence,
        error=result.error,
        raw="\n\n".join(result.raw)[:20_000] if result.category == UNCLEAR else "",
        model=model,
        content_key=key,
        cached=cached,
        latency_s=result.latency_s,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        cost=result.cost,
    )


def _text(pair: JudgePair) -> PairText:
    return PairText(
        pair.statement,
        pair.baseline,
        pair.optimized,
        pair.baseline_s,
        pair.optimized_s,
        evidence=Evidence.from_dict(pair.evidence),
    )


def do_run_batch(
    batch_id: int, on_progress=None, llm: LLMJudge | None = None, worker: str = ""
) -> str:
    """Every judge of the batch on every pair that is judged (not within noise, not
    slower), after each pair's evidence is measured (when the batch measures). An LLM reply
    that stays invalid is that pair's `unclear`, its text kept; an endpoint that fails is
    that pair's judge error; the batch goes on. The LLM's verdicts are cached by the pair's
    content and evidence, the model and the prompt version."""
    batch = claim(JudgeBatch, batch_id, worker)
    if batch is None:  # delivered again after it ended
        return JudgeBatch.objects.get(pk=batch_id).status
    pairs = list(batch.pairs.filter(kind__in=[JudgePair.Kind.FASTER, JudgePair.Kind.UNMEASURED]))
    steps = len(pairs) * (len(batch.judges) + (1 if batch.measure else 0))
    tracker = Progress(batch, steps, on_progress)

    def advance(stage: str) -> None:
        tracker.advance(1, stage)

    with failure_recorded(JudgeBatch.objects.filter(pk=batch.pk)):
        if batch.measure:
            measure_evidence(pairs, advance)
        if "analyzer" in batch.judges:
            for pair in pairs:
                why = pair.evidence_note or "the batch does not measure"
                verdict = decide(
                    pair.baseline,
                    pair.optimized,
                    Evidence.from_dict(pair.evidence),
                    why,
                    (pair.baseline_exponent, pair.optimized_exponent),
                )
                _store(
                    pair,
                    Judgment.Judge.ANALYZER,
                    category=verdict.category,
                    secondary=verdict.secondary or "",
                    rationale=verdict.rationale,
                    confidence=verdict.confidence,
                    error="",
                )
                advance(f"analyzer: {pair.problem_slug}")
        if "llm" in batch.judges:
            _run_llm(batch, pairs, llm, advance)
    return finish(batch, stage="done")


def _run_llm(batch: JudgeBatch, pairs: list[JudgePair], llm: LLMJudge | None, advance) -> None:
    if llm is None:
        settings = LLMSettings.from_env()
        if settings is None:
            raise ValueError("judge: no LLM endpoint is configured (JUDGE_LLM_BASE_URL)")
        llm = LLMJudge(settings, seed=batch.pk)
    model = llm.settings.model
    waiting = []
    for pair in pairs:
        key = _text(pair).content_key(model)
        earlier = (
            Judgment.objects.filter(judge=Judgment.Judge.LLM, content_key=key, error="")
            .exclude(pair=pair)
            .exclude(category=UNCLEAR)  # an abstention is asked again, as an error is
            .first()
        )
        if earlier is None:
            waiting.append((pair, key))
            continue
        # the earlier verdict again; a reuse costs no tokens and no time (LLMResult's defaults)
        reused = LLMResult(
            earlier.category, earlier.secondary, earlier.rationale, earlier.confidence
        )
        _store_llm(pair, model, key, reused, cached=True)
        advance(f"llm (cached): {pair.problem_slug}")

    def store(index: int, result: LLMResult) -> None:
        pair, key = waiting[index]
        _store_llm(pair, model, key, result, cached=False)
        advance(f"llm: {pair.problem_slug}")

    llm.judge_many([_text(pair) for pair, _ in waiting], on_done=store)


def do_label(pair: JudgePair, user, category: str, rationale: str = "") -> Judgment:
    """A person's category for a pair (replacing their earlier one); shown in the agreement
    matrix as the `human` judge."""
    check_category(category)
    Judgment.objects.update_or_create(
        pair=pair,
        judge=Judgment.Judge.HUMAN,
        defaults={
            "category": category,
            "rationale": rationale.strip()[:2000],
            "by": user.username,
            "confidence": 1.0,
            "error": "",
        },
    )
    return Judgment.objects.get(pair=pair, judge=Judgment.Judge.HUMAN)
