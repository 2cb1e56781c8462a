"""Judging requests: the pairs of an evaluation (or two) or of a file, checked, each field at
fault named."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from django.conf import settings as django_settings

from evaluations.models import Evaluation
from evaluations.reads import visible_evaluations
from foundation import inputs, jsonlines
from judges.categories import check_category
from judges.llm import LLMSettings
from judges.models import JudgePair
from problems.models import Problem, ReferenceSolution
from rewards.runtimes import loaded_problems

JUDGES = ("analyzer", "llm")


DEFAULT_TIE_BAND = 0.05
"""Relative runtime difference within which a pair is measurement noise (as the win rate)."""


@dataclass
class PairInput:
    problem_slug: str
    baseline: str
    optimized: str
    statement: str = ""
    baseline_label: str = ""
    optimized_label: str = ""
    baseline_s: float | None = None
    optimized_s: float | None = None
    baseline_exponent: float | None = None
    optimized_exponent: float | None = None
    true_category: str = ""  # the ground truth of a labelled pairs file


@dataclass
class JudgeRequest:
    name: str
    judges: list[str]
    pairs: list[PairInput]
    evaluation: object = None
    baseline_evaluation: object = None
    pairs_file: str = ""
    llm_model: str = ""
    tie_band: float = DEFAULT_TIE_BAND
    measure: bool = True  # measure each pair's evidence before judging
    input_errors: list[dict] = field(default_factory=list)


def pair_kind(baseline_s: float | None, optimized_s: float | None, tie_band: float) -> str:
    """faster / within_noise / slower from the two runtimes; unmeasured without them."""
    if baseline_s is None or optimized_s is None:
        return JudgePair.Kind.UNMEASURED
    if not (math.isfinite(baseline_s) and math.isfinite(optimized_s)):
        return JudgePair.Kind.FASTER if math.isfinite(optimized_s) else JudgePair.Kind.SLOWER
    faster = min(baseline_s, optimized_s)
    if abs(baseline_s - optimized_s) <= tie_band * faster:
        return JudgePair.Kind.NOISE
    return JudgePair.Kind.FASTER if optimized_s < baseline_s else JudgePair.Kind.SLOWER


def _median_sample(evaluation, problem_slug: str):
    """The evaluation's median-speed correct sample of a problem (the lower middle), or None."""
    rows = sorted(
        evaluation.samples.filter(
            problem__slug=problem_slug, correct=True, cost_s__isnull=False
        ).order_by("index"),
        key=lambda s: s.cost_s,
    )
    return rows[(len(rows) - 1) // 2] if rows else None


def _sample_exponent(evaluation, problem_slug: str, index: int) -> float | None:
    per_problem = (evaluation.results or {}).get("per_problem", {}).get(problem_slug) or {}
    complexity = per_problem.get("complexity") or {}
    if complexity.get("sample_index") == index:
        return complexity.get("sample_exponent")
    return None


def _median_reference(problem_slug: str):
    """(name, code, CPU s over the optimization tests) of the problem's median Python
    reference by stored runtime, or None."""

    loaded = loaded_problems("", [problem_slug])
    if not loaded:
        return None
    item = loaded[0]
    totals = [
        (float(item.runtimes.reference_costs[i].sum()), name)
        for i, name in enumerate(item.references)
    ]
    finite = sorted((t, n) for t, n in totals if math.isfinite(t))
    if not finite:
        return None
    total, name = finite[(len(finite) - 1) // 2]
    code = ReferenceSolution.objects.get(problem__slug=problem_slug, name=name).code
    return name, code, total


def pairs_from_evaluation(evaluation, baseline_evaluation=None) -> tuple[list[PairInput], list]:
    """One pair per problem: the evaluation's median-speed correct sample against the
    baseline evaluation's (the starting model) or the median human reference. Problems
    without a correct sample on a side are listed in the second value, with the reason."""

    statements = dict(
        Problem.objects.filter(slug__in=evaluation.problem_slugs).values_list("slug", "statement")
    )
    pairs, skipped = [], []
    for slug in evaluation.problem_slugs:
        optimized = _median_sample(evaluation, slug)
        if optimized is None:
            skipped.append({"problem": slug, "error": "no correct sample to judge"})
            continue
        pair = PairInput(
            problem_slug=slug,
            statement=statements.get(slug, ""),
            baseline="",
            optimized=optimized.program,
            optimized_label=f"{evaluation.name}, sample {optimized.index}",
            optimized_s=optimized.cost_s,
            optimized_exponent=_sample_exponent(evaluation, slug, optimized.index),
        )
        if baseline_evaluation is not None:
            baseline = _median_sample(baseline_evaluation, slug)
            if baseline is None:
                skipped.append({"problem": slug, "error": "the baseline has no correct sample"})
                continue
            pair.baseline, pair.baseline_s = baseline.program, baseline.cost_s
            pair.baseline_label = f"{baseline_evaluation.name}, sample {baseline.index}"
            pair.baseline_exponent = _sample_exponent(baseline_evaluation, slug, baseline.index)
        else:
            reference = _median_reference(slug)
            if reference is None:
                skipped.append({"problem": slug, "error": "no reference with stored runtimes"})
                continue
            name, pair.baseline, pair.baseline_s = reference
            pair.baseline_label = f"median human reference ({name})"
            per_problem = (evaluation.results or {}).get("per_problem", {}).get(slug) or {}
            exponents = (per_problem.get("complexity") or {}).get("reference_exponents") or {}
            pair.baseline_exponent = exponents.get(name)
        pairs.append(pair)
    return pairs, skipped


def parse_pairs_file(text: str) -> tuple[list[PairInput], list[dict]]:
    """JSON lines with `problem`, `baseline`, `optimized` and optionally `baseline_s`,
    `optimized_s` (runtimes, seconds), `statement` and `category` (the ground truth: the
    batch page then scores each judge against it); bad lines reported by number."""
    pairs, errors = [], []
    for number, row in jsonlines.objects(text, errors):
        problem = ""
        try:
            for key in ("problem", "baseline", "optimized"):
                if not isinstance(row.get(key), str) or not row[key].strip():
                    raise ValueError(f"{key}: missing or not a string")
            problem = row["problem"]
            times = {}
            for key in ("baseline_s", "optimized_s"):
                value = row.get(key)
                if value is not None and (
                    isinstance(value, bool) or not isinstance(value, int | float) or value <= 0
                ):
                    raise ValueError(f"{key}: not a positive number of seconds")
                times[key] = None if value is None else float(value)
            truth = row.get("category")
            truth = "" if truth in (None, "") else check_category(truth)
        except ValueError as exc:
            errors.append({"line": number, "error": str(exc)})
            continue
        pairs.append(
            PairInput(
                problem_slug=problem[:200],
                statement=str(row.get("statement") or ""),
                baseline=row["baseline"],
                optimized=row["optimized"],
                baseline_label=f"line {number}: baseline",
                optimized_label=f"line {number}: optimized",
                true_category=truth,
                **times,
            )
        )
    return pairs, errors


def first_per_category(text: str, count: int) -> str:
    """The lines of a labelled pairs file keeping only the first `count` pairs of each
    `category` (lines that do not parse, or carry no category, are kept for the parser)."""
    if count < 1:
        raise ValueError(f"per_category: {count} is not at least 1")
    kept, seen = [], {}
    for line in text.splitlines():
        try:
            category = json.loads(line).get("category")
        except (ValueError, AttributeError):
            category = None
        if category:
            seen[category] = seen.get(category, 0) + 1
            if seen[category] > count:
                continue
        kept.append(line)
    return "\n".join(kept) + "\n"


def _judges(raw, llm_configured: bool) -> list[str]:
    """The judges asked for; by default the analyzer, and the LLM too when an endpoint is
    configured (the analyzer then cross-checks it)."""
    if isinstance(raw, str):
        raw = [part for part in raw.replace(",", " ").split() if part]
    if raw in (["both"], ("both",)):
        raw = list(JUDGES)
    default = list(JUDGES) if llm_configured else ["analyzer"]
    chosen = list(dict.fromkeys(raw or default))
    for judge in chosen:
        if judge not in JUDGES:
            raise ValueError(f"judge: {judge!r} is not one of {', '.join(JUDGES)}")
    return chosen


def _flag(field_name: str, raw) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"{field_name}: {raw!r} is not true or false")


def _id(data: dict, key: str) -> int:
    return inputs.record_id(key, data[key])


def check_judge_request(user, data: dict, upload: tuple[str, str] | None = None) -> JudgeRequest:
    """A JudgeRequest for {evaluation | run, baseline: human|start, judge, tie_band} or an
    uploaded pairs file; ValueError naming the field at fault, before anything is written."""

    settings = LLMSettings.from_env()
    judges = _judges(data.get("judge"), settings is not None)
    if "llm" in judges and settings is None:
        raise ValueError(
            "judge: no LLM endpoint is configured (set JUDGE_LLM_BASE_URL and JUDGE_LLM_MODEL)"
        )
    tie_band = inputs.number(
        "tie_band", data.get("tie_band"), low=0, high=0.99, default=DEFAULT_TIE_BAND
    )
    request = JudgeRequest(
        name=(data.get("name") or "").strip(),
        judges=judges,
        pairs=[],
        llm_model=settings.model if settings and "llm" in judges else "",
        tie_band=tie_band,
        measure=_flag("measure", data.get("measure", True)),
    )
    if upload is not None:
        if data.get("evaluation") or data.get("run"):
            raise ValueError("pairs: judge either a file of pairs or an evaluation/run, not both")
        if data.get("baseline") == "start":
            raise ValueError("baseline: a file of pairs brings its own baselines")
        file_name, text = upload
        request.pairs, request.input_errors = parse_pairs_file(text)
        limit = django_settings.CODEOPT_MAX_JUDGE_PAIRS
        if len(request.pairs) > limit:
            raise inputs.InputError(
                "pairs", f"{len(request.pairs):,} pairs; at most {limit:,} per batch"
            )
        if not request.pairs:
            first = (
                f"; line {request.input_errors[0]['line']}: {request.input_errors[0]['error']}"
                if request.input_errors
                else ""
            )
            raise ValueError(f"pairs: no valid line in {file_name}{first}")
        request.pairs_file = file_name
        request.name = request.name or f"pairs {file_name}"
        return request
    done = visible_evaluations(user).filter(status=Evaluation.Status.DONE)
    baseline_kind = data.get("baseline") or "human"
    if baseline_kind not in ("human", "start"):
        raise ValueError(f"baseline: {baseline_kind!r} is not one of human, start")
    if data.get("run"):
        run_id = _id(data, "run")
        evaluation = done.filter(run_id=run_id).order_by("-step", "-created_at").first()
        if evaluation is None:
            raise ValueError(f"run: run {run_id} has no finished evaluation you can see")
    elif data.get("evaluation"):
        evaluation = done.filter(pk=_id(data, "evaluation")).first()
        if evaluation is None:
            raise ValueError(f"evaluation: no finished evaluation {data['evaluation']} you can see")
    else:
        raise ValueError("evaluation: choose a run, an evaluation or a pairs file")
    baseline_evaluation = None
    if baseline_kind == "start":
        if data.get("baseline_evaluation"):
            baseline_evaluation = done.filter(pk=_id(data, "baseline_evaluation")).first()
            if baseline_evaluation is None:
                raise ValueError(
                    f"baseline_evaluation: no finished evaluation {data['baseline_evaluation']} "
                    "you can see"
                )
        elif evaluation.run_id is not None:
            baseline_evaluation = (
                done.filter(run_id=evaluation.run_id, step=0).order_by("-created_at").first()
            )
        if baseline_evaluation is None:
            raise ValueError(
                "baseline: no finished evaluation of the starting model (step 0 of the run); "
                "evaluate it first, or choose the median human reference"
            )
        if baseline_evaluation.pk == evaluation.pk:
            raise ValueError(
                f"baseline_evaluation: evaluation {evaluation.pk} is the one judged; choose the "
                "starting model's"
            )
    request.evaluation, request.baseline_evaluation = evaluation, baseline_evaluation
    request.pairs, request.input_errors = pairs_from_evaluation(evaluation, baseline_evaluation)
    if not request.pairs:
        raise ValueError(f"evaluation: no problem of {evaluation.name!r} gives a pair to judge")
    against = baseline_evaluation.name if baseline_evaluation else "median human"
    request.name = request.name or f"{evaluation.name} vs {against}"
    return request
