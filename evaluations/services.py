"""Evaluation services: check a request, create an evaluation, run it (the Celery task's
body). The figures come from evaluations.metrics; generation and scoring reuse the trainer's
(training) and the timing service's (execution) code."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.utils.timezone import now

from evaluations import metrics, running
from evaluations.models import Evaluation, EvaluationSample
from evaluations.reads import SPLITS, default_split, outcomes_of, split_counts
from evaluations.uploads import parse_completions
from execution.isolation import active_isolation
from execution.retries import counted
from foundation import inputs
from foundation.jobs import Progress, claim, create_job, failure_recorded, finish
from foundation.sending import enqueue
from lm.base_models import TINY
from problems.models import Problem
from rewards.runtimes import loaded_problems
from runs.services import visible_runs
from training.model_choice import check_model
from training.services import checkpoint_steps

MAX_SAMPLES = 200


@dataclass
class EvaluationRequest:
    """A checked request: everything needed to create the Evaluation row."""

    source: str
    name: str
    split: str
    problem_slugs: list[str]
    n: int
    temperature: float
    seed: int
    max_new_tokens: int
    taus: list[float]
    complexity: bool
    run: object = None
    step: int | None = None
    model: str = ""
    completions_file: str = ""
    completions: list[dict] = field(default_factory=list)  # {problem, program, index}
    input_errors: list[dict] = field(default_factory=list)  # {line, error}


def _number(data: dict, key: str, kind, default, low=None, high=None):
    return inputs.number(key, data.get(key), low=low, high=high, default=default,
                         whole=kind is int)  # fmt: skip


ANY_LENGTH = 1 << 40  # a choice or an upload: their own checks say what is wrong
MAX_TEXT = {"name": 200, "model": 500, "team": 100, "source": ANY_LENGTH, "split": ANY_LENGTH}
"""The request's text fields and their limits (the columns' lengths for those stored)."""


def _taus(raw) -> list[float]:
    """The default τs and any asked for (a list, or text with commas or spaces)."""
    if raw in (None, ""):
        extra = []
    elif isinstance(raw, str):
        extra = [part for part in raw.replace(",", " ").split() if part]
    elif isinstance(raw, list | tuple):
        extra = list(raw)
    else:  # a JSON true or an object (was a 500)
        raise inputs.InputError("taus", "a list of numbers in (0, 100], or text with commas")
    taus = set(metrics.DEFAULT_TAUS)
    for value in extra:
        try:
            tau = float(value)
        except (TypeError, ValueError):
            raise inputs.InputError("taus", f"{value!r} is not a number") from None
        if not 0 < tau <= 100:
            raise inputs.InputError("taus", f"{value!r} is not in (0, 100]")
        taus.add(tau)
    return sorted(taus, reverse=True)


def _no_problems(split: str, counts: dict[str, int]) -> str:
    others = [f"{s} has {counts[s]}" for s in SPLITS if s != split and counts.get(s)]
    if not others:
        return (
            "no problem of any split has stored reference runtimes yet; run a "
            "dataset build (Dataset page)"
        )
    return (
        f"no {split} problem has stored reference runtimes ({', '.join(others)}): "
        "choose another split"
    )


def check_evaluation_request(user, data: dict, upload: tuple[str, str] | None = None):
    """EvaluationRequest for `data` (form or CLI fields) and an optional upload (file name,
    text); ValueError naming the field at fault, before anything is written."""
    for name, limit in MAX_TEXT.items():  # read as text below (a JSON list was a 500)
        if data.get(name) is not None:
            inputs.text(name, data[name], max_chars=limit)
    source = data.get("source") or ""
    if source not in Evaluation.Source.values:
        known = ", ".join(Evaluation.Source.values)
        raise inputs.InputError("source", f"{source!r} is not one of {known}")
    counts = split_counts()
    split = data.get("split") or default_split(counts)
    if split not in SPLITS:
        raise inputs.InputError("split", f"{split!r} is not one of {', '.join(SPLITS)}")
    asked = data.get("problems") or []
    if isinstance(asked, str):
        asked = [s for s in asked.replace(",", " ").split() if s]
    if not isinstance(asked, list) or not all(isinstance(s, str) for s in asked):
        raise inputs.InputError("problems", "a list of problem slugs, or leave it out for all")
    available = {p.slug for p in loaded_problems("" if split == "all" else split)}
    unknown = sorted(set(asked) - available)
    if unknown:
        raise inputs.InputError(
            "problems",
            f"{', '.join(unknown)} not among the {split} problems with stored reference runtimes",
        )
    slugs = sorted(asked or available)
    if not slugs:
        raise inputs.InputError("split", _no_problems(split, counts))
    request = EvaluationRequest(
        source=source,
        name=(data.get("name") or "").strip(),
        split=split,
        problem_slugs=slugs,
        n=_number(data, "n", int, 20, 1, MAX_SAMPLES),
        temperature=_number(data, "temperature", float, 1.0, 0.01, 5.0),
        seed=_number(data, "seed", int, 0, 0, 2**31 - 1),
        max_new_tokens=_number(data, "max_new_tokens", int, 256, 8, 4096),
        taus=_taus(data.get("taus")),
        complexity=str(data.get("complexity", True)).lower() not in ("false", "0", "off", ""),
    )
    if source == Evaluation.Source.RUN:
        run_id = _number(data, "run", int, None, 1)
        if run_id is None:
            raise inputs.InputError("run", "choose a training run")
        run = visible_runs(user).filter(pk=run_id, training__isnull=False).first()
        if run is None:
            raise inputs.InputError("run", f"no training run {run_id} you can see")
        found = checkpoint_steps(run.training)
        if not found:
            raise inputs.InputError("step", f"run {run_id} has no checkpoint yet")
        step = _number(data, "step", int, max(found), 0)
        if step not in found:
            raise inputs.InputError(
                "step",
                f"run {run_id} has no checkpoint at step {step} (it has "
                f"{', '.join(str(s) for s in sorted(found))})",
            )
        request.run, request.step = run, step
        request.model = json.loads(run.config).get("model", TINY)
        request.name = request.name or f"{run.name} step {step}"
    elif source == Evaluation.Source.MODEL:
        model = (data.get("model") or "").strip() or TINY
        request.model = check_model(model)
        request.name = request.name or f"{Path(model).name or model} (base)"
    else:
        if upload is None:
            raise inputs.InputError("completions", "upload a JSON-lines file")
        file_name, text = upload
        kept, errors = parse_completions(
            text,
            set(slugs),
            "the " + ("" if split == "all" else f"{split} ") + "problems with stored runtimes",
        )
        if not kept:
            first = f"; line {errors[0]['line']}: {errors[0]['error']}" if errors else ""
            raise inputs.InputError("completions", f"no valid line in {file_name}{first}")
        request.completions, request.input_errors = kept, errors
        request.completions_file = file_name
        request.problem_slugs = sorted({c["problem"] for c in kept})
        per_problem = max(sum(c["problem"] == s for c in kept) for s in request.problem_slugs)
        if per_problem > MAX_SAMPLES:
            raise inputs.InputError(
                "completions",
                f"{per_problem:,} completions of one problem; at most {MAX_SAMPLES} per problem",
            )
        request.n = per_problem
        request.name = request.name or f"upload {file_name}"
    return request


def do_create_evaluation(owner, team, request: EvaluationRequest, queue: bool = True):
    """The Evaluation row (and an upload's samples, not scored yet); with `queue`, the task
    goes to the `gpu` queue when it generates, to `timing` when it only scores."""

    with transaction.atomic():
        evaluation = create_job(
            Evaluation, request, owner=owner, team=team, name=request.name[:200]
        )
        if request.completions:
            ids = dict(
                Problem.objects.filter(slug__in=request.problem_slugs).values_list("slug", "pk")
            )
            EvaluationSample.objects.bulk_create(
                EvaluationSample(
                    evaluation=evaluation,
                    problem_id=ids[c["problem"]],
                    index=c["index"],
                    completion=c["program"],
                    program=c["program"],
                )
                for c in request.completions
            )
        if queue:
            _queue(evaluation)
    return evaluation


def _queue(evaluation: Evaluation) -> None:
    """The task on `timing` when it only scores uploaded programs, on `gpu` when it
    generates, once the transaction commits."""
    enqueue("evaluations.evaluate", evaluation.pk, queue=evaluation.queue)


def do_retry_evaluation(evaluation: Evaluation) -> int:
    """Queue a failed evaluation again (it starts over: do_run_evaluation); 1 if it was
    still failed, 0 if another retry took it meanwhile."""
    queued = Evaluation.objects.filter(pk=evaluation.pk, status=Evaluation.Status.FAILED).update(
        status=Evaluation.Status.QUEUED, error="", stage="", finished_at=None, results=None
    )
    _queue(evaluation)
    return queued


CANCELLED = "cancelled by {user} before it started"


def do_cancel_evaluation(evaluation: Evaluation, user) -> bool:
    """Cancel a queued evaluation: it ends `failed` with the error saying who cancelled it
    (it can be retried like any failed one); its message, when a worker takes it, finds it
    no longer queued and does nothing (claim). False when it had already started or ended."""
    error = CANCELLED.format(user=user.username)
    return bool(
        Evaluation.objects.filter(pk=evaluation.pk, status=Evaluation.Status.QUEUED).update(
            status=Evaluation.Status.FAILED, error=error, stage="cancelled", finished_at=now()
        )
    )


# -- running ---------------------------------------------------------------------------------


def do_run_evaluation(evaluation_id: int, worker: str = "", on_progress=None) -> str:
    """The task body: generate (checkpoint or base model), score, fit exponents, summarize.
    A re-delivered evaluation starts over from the upload or from generation."""
    if claim(Evaluation, evaluation_id, worker, stage="loading problems") is None:
        return Evaluation.objects.get(pk=evaluation_id).status  # delivered again after it ended
    evaluation = Evaluation.objects.select_related("run").get(pk=evaluation_id)
    generating = evaluation.source != Evaluation.Source.COMPLETIONS
    with failure_recorded(Evaluation.objects.filter(pk=evaluation.pk)), counted() as sandbox:
        if generating:
            evaluation.samples.all().delete()
        else:
            evaluation.samples.update(verdict="", correct=False, speed_percentile=None, cost_s=None)
        with tempfile.TemporaryDirectory(prefix="codeopt-eval-") as folder:
            items = running.evaluation_problems(evaluation, Path(folder))
            count = len(items) * evaluation.n if generating else evaluation.samples.count()
            progress = Progress(
                evaluation,
                (count if generating else 0) + count + (len(items) if evaluation.complexity else 0),
                on_progress,
            )
            if generating:
                running.generate(evaluation, items, progress)
            running.score(evaluation, items, progress)
            complexity: dict[str, dict | None] = {}
            if evaluation.complexity:
                for item in items:
                    progress.stage(f"scaling exponents of {item.slug}")
                    complexity[item.slug] = running.complexity_of(evaluation, item)
                    progress.advance(1)
            outcomes = outcomes_of(evaluation)
            figures = metrics.summarize(
                {item.slug: outcomes[item.slug] for item in items if item.slug in outcomes},
                {item.slug: list(running.reference_totals(item).values()) for item in items},
                evaluation.taus,
                evaluation.seed,
                complexity,
            )
            results = metrics.json_safe(figures)
            results["sandbox"] = {"isolation": active_isolation().kind, **sandbox.as_dict()}
    return finish(evaluation, stage="done", results=results)
