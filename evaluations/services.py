"""Evaluation services: check a request, create an evaluation, run it (the Celery task's
body). The figures come from evaluations.metrics; generation and scoring reuse the trainer's
(workers.training) and the timing service's (workers.execution) code."""

from __future__ import annotations

import json
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.db import transaction
from django.utils import timezone

from codeopt_site import jsonlines
from codeopt_site.jobs import failure_recorded
from evaluations import metrics
from evaluations.models import Evaluation, EvaluationSample

MAX_SAMPLES = 200
COMPLEXITY_MARGIN = 0.25
"""A program scales better than the median human when its exponent is lower by more than
this: exponents fitted over an 8x range of sizes move by about ±0.1 between runs here."""
SPLITS = ("train", "test", "all")


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
    raw = data.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        what = "an integer" if kind is int else "a number"
        raise ValueError(f"{key}: {raw!r} is not {what}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{key}: must be a finite number")
    if low is not None and value < low:
        raise ValueError(f"{key}: must be at least {low}")
    if high is not None and value > high:
        raise ValueError(f"{key}: must be at most {high}")
    return value


def _taus(raw) -> list[float]:
    """The default τs and any asked for (a list, or text with commas or spaces)."""
    if raw in (None, ""):
        extra = []
    elif isinstance(raw, str):
        extra = [part for part in raw.replace(",", " ").split() if part]
    else:
        extra = list(raw)
    taus = set(metrics.DEFAULT_TAUS)
    for value in extra:
        try:
            tau = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"taus: {value!r} is not a number") from None
        if not 0 < tau <= 100:
            raise ValueError(f"taus: {value!r} is not in (0, 100]")
        taus.add(tau)
    return sorted(taus, reverse=True)


def parse_completions(
    text: str, known: set[str], where: str = "the evaluated problems"
) -> tuple[list[dict], list[dict]]:
    """(completions, errors) of a JSON-lines upload: each line an object with `problem` (a
    slug among `known`), `program` (text) and optionally `sample_index` (an integer >= 0,
    unique per problem; numbered in file order when absent). A malformed line is reported
    by its number and left out; the others are kept."""
    kept, errors = [], []
    used: dict[str, set[int]] = {}
    for number, row in jsonlines.objects(text, errors):
        problem, program = row.get("problem"), row.get("program")
        if not isinstance(problem, str) or not problem:
            errors.append({"line": number, "error": "problem: missing or not a string"})
            continue
        if problem not in known:
            errors.append({"line": number, "error": f"problem: {problem!r} is not among {where}"})
            continue
        if not isinstance(program, str):
            errors.append({"line": number, "error": "program: missing or not a string"})
            continue
        index = row.get("sample_index")
        taken = used.setdefault(problem, set())
        if index is None:
            index = max(taken, default=-1) + 1
        elif not isinstance(index, int) or isinstance(index, bool) or index < 0:
            errors.append({"line": number, "error": "sample_index: not an integer >= 0"})
            continue
        if index in taken:
            errors.append(
                {"line": number, "error": f"sample_index: {index} repeats for {problem!r}"}
            )
            continue
        taken.add(index)
        kept.append({"problem": problem, "program": program, "index": index})
    return kept, errors


def check_evaluation_request(user, data: dict, upload: tuple[str, str] | None = None):
    """EvaluationRequest for `data` (form or CLI fields) and an optional upload (file name,
    text); ValueError naming the field at fault, before anything is written."""
    from runs.services import visible_runs
    from workers.services import checkpoint_steps, loaded_problems
    from workers.training.policy import TINY

    source = data.get("source") or ""
    if source not in Evaluation.Source.values:
        raise ValueError(f"source: {source!r} is not one of {', '.join(Evaluation.Source.values)}")
    split = data.get("split") or "test"
    if split not in SPLITS:
        raise ValueError(f"split: {split!r} is not one of {', '.join(SPLITS)}")
    asked = data.get("problems") or []
    if isinstance(asked, str):
        asked = [s for s in asked.replace(",", " ").split() if s]
    available = {p.slug for p in loaded_problems("" if split == "all" else split)}
    unknown = sorted(set(asked) - available)
    if unknown:
        raise ValueError(
            f"problems: {', '.join(unknown)} not among the {split} problems with stored "
            "reference runtimes"
        )
    slugs = sorted(asked or available)
    if not slugs:
        raise ValueError(
            f"split: no {split} problem has stored reference runtimes; run a dataset build"
        )
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
            raise ValueError("run: choose a training run")
        run = visible_runs(user).filter(pk=run_id, training__isnull=False).first()
        if run is None:
            raise ValueError(f"run: no training run {run_id} you can see")
        found = checkpoint_steps(run.training)
        if not found:
            raise ValueError(f"step: run {run_id} has no checkpoint yet")
        step = _number(data, "step", int, max(found), 0)
        if step not in found:
            raise ValueError(
                f"step: run {run_id} has no checkpoint at step {step} (it has "
                f"{', '.join(str(s) for s in sorted(found))})"
            )
        request.run, request.step = run, step
        request.model = json.loads(run.config).get("model", TINY)
        request.name = request.name or f"{run.name} step {step}"
    elif source == Evaluation.Source.MODEL:
        model = (data.get("model") or "").strip() or TINY
        if model != TINY and not (Path(model) / "config.json").is_file():
            raise ValueError(f"model: {model!r} is neither 'tiny' nor a local model folder")
        request.model = model
        request.name = request.name or f"{Path(model).name or model} (base)"
    else:
        if upload is None:
            raise ValueError("completions: upload a JSON-lines file")
        file_name, text = upload
        kept, errors = parse_completions(
            text,
            set(slugs),
            "the " + ("" if split == "all" else f"{split} ") + "problems with stored runtimes",
        )
        if not kept:
            first = f"; line {errors[0]['line']}: {errors[0]['error']}" if errors else ""
            raise ValueError(f"completions: no valid line in {file_name}{first}")
        request.completions, request.input_errors = kept, errors
        request.completions_file = file_name
        request.problem_slugs = sorted({c["problem"] for c in kept})
        per_problem = max(sum(c["problem"] == s for c in kept) for s in request.problem_slugs)
        request.n = per_problem
        request.name = request.name or f"upload {file_name}"
    return request


def do_create_evaluation(owner, team, request: EvaluationRequest, queue: bool = True):
    """The Evaluation row (and an upload's samples, not scored yet); with `queue`, the task
    goes to the `gpu` queue when it generates, to `timing` when it only scores."""
    from problems.models import Problem
    from workers.tasks import evaluate

    with transaction.atomic():
        evaluation = Evaluation.objects.create(
            owner=owner,
            team=team,
            name=request.name[:200],
            source=request.source,
            run=request.run,
            step=request.step,
            model=request.model,
            completions_file=request.completions_file,
            split=request.split,
            problem_slugs=request.problem_slugs,
            n=request.n,
            temperature=request.temperature,
            seed=request.seed,
            max_new_tokens=request.max_new_tokens,
            taus=request.taus,
            complexity=request.complexity,
            input_errors=request.input_errors,
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
            where = "timing" if request.source == Evaluation.Source.COMPLETIONS else "gpu"
            transaction.on_commit(lambda: evaluate.apply_async((evaluation.pk,), queue=where))
    return evaluation


# -- running ---------------------------------------------------------------------------------


class _Progress:
    """Progress on the row (the page polls it) and to `on_progress(done, total, stage)`."""

    def __init__(self, evaluation: Evaluation, total: int, on_progress=None):
        self.pk = evaluation.pk
        self.done, self.total, self.text = 0, total, ""
        self.on_progress = on_progress
        Evaluation.objects.filter(pk=self.pk).update(progress_done=0, progress_total=total)

    def _tell(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.done, self.total, self.text)

    def stage(self, text: str) -> None:
        self.text = text[:200]
        Evaluation.objects.filter(pk=self.pk).update(stage=self.text)
        self._tell()

    def advance(self, by: int) -> None:
        self.done += by
        Evaluation.objects.filter(pk=self.pk).update(progress_done=self.done)
        self._tell()


@dataclass
class EvalProblem:
    slug: str
    problem_id: int
    prompt: str  # as the evaluated run was prompted (with its baseline program, if it was)
    scoring: object  # workers.training.scoring.ScoringProblem
    loaded: object  # rewards.services.LoadedProblem: reference names, optimization tests


def evaluation_problems(evaluation: Evaluation, folder: Path) -> list[EvalProblem]:
    """The evaluation's problems with their tests written under `folder`."""
    from workers.services import loaded_problems, scoring_problem, slowest_reference
    from workers.training.rollout import make_prompt

    run_config = json.loads(evaluation.run.config) if evaluation.run else {}
    with_baseline = bool(run_config.get("baseline_program"))
    split = "" if evaluation.split == "all" else evaluation.split
    found = []
    for item in loaded_problems(split, evaluation.problem_slugs):
        (folder / item.slug).mkdir(parents=True, exist_ok=True)
        problem, scoring = scoring_problem(item, folder / item.slug)
        baseline = slowest_reference(problem, item) if with_baseline else None
        prompt = make_prompt(problem.statement or problem.title, baseline)
        found.append(EvalProblem(item.slug, problem.pk, prompt, scoring, item))
    return found


def _generate(evaluation: Evaluation, problems: list[EvalProblem], progress: _Progress) -> None:
    """n samples per problem from the checkpoint or base model, stored unscored."""
    import torch

    from workers.services import checkpoint_steps
    from workers.training.policy import load_checkpoint, load_policy
    from workers.training.rollout import sample_groups

    if evaluation.source == Evaluation.Source.RUN:
        kept = checkpoint_steps(evaluation.run.training)
        if evaluation.step not in kept:  # the run went on and replaced it meanwhile
            raise ValueError(
                f"step: run {evaluation.run_id} no longer has its checkpoint at step "
                f"{evaluation.step} (it keeps {', '.join(str(k) for k in sorted(kept))})"
            )
        folder = kept[evaluation.step]
        seed = json.loads(evaluation.run.config).get("seed", 0)
        model, tokenizer = load_checkpoint(evaluation.model, folder, seed)
    else:
        corpus = _reference_corpus(evaluation.problem_slugs)
        model, tokenizer = load_policy(evaluation.model, corpus, seed=evaluation.seed)
    for position, item in enumerate(problems):
        progress.stage(f"generating {item.slug} ({position + 1}/{len(problems)})")
        torch.manual_seed(evaluation.seed * 100_003 + position)
        samples = sample_groups(
            model,
            tokenizer,
            [item.prompt],
            evaluation.n,
            max_new_tokens=evaluation.max_new_tokens,
            temperature=evaluation.temperature,
        )
        EvaluationSample.objects.bulk_create(
            EvaluationSample(
                evaluation=evaluation,
                problem_id=item.problem_id,
                index=index,
                completion=sample.text,
                program=sample.program or "",
            )
            for index, sample in enumerate(samples)
        )
        progress.advance(evaluation.n)


def _reference_corpus(slugs: list[str]) -> list[str]:
    """What the tiny model's tokenizer is trained on: the problems' statements and programs."""
    from problems.models import Problem, ReferenceSolution

    texts = list(Problem.objects.filter(slug__in=slugs).values_list("statement", flat=True))
    texts += list(
        ReferenceSolution.objects.filter(problem__slug__in=slugs, language="python").values_list(
            "code", flat=True
        )
    )
    return texts


def _score(evaluation: Evaluation, problems: list[EvalProblem], progress: _Progress) -> None:
    from rewards.engine import RewardConfig
    from workers.training.scoring import score_group

    for item in problems:
        rows = list(evaluation.samples.filter(problem_id=item.problem_id).order_by("index"))
        if not rows:
            continue
        progress.stage(f"scoring {item.slug}: {len(rows)} programs")
        scores = score_group(
            [row.program or None for row in rows], item.scoring, RewardConfig(name="evaluation")
        )
        for row, score in zip(rows, scores, strict=True):
            row.verdict, row.correct = score.verdict, score.correct
            row.speed_percentile = score.speed_percentile
            row.cost_s = (
                sum(math.inf if c is None else c for c in score.costs) if score.correct else None
            )
        EvaluationSample.objects.bulk_update(
            rows, ["verdict", "correct", "speed_percentile", "cost_s"]
        )
        progress.advance(len(rows))


def outcomes_of(evaluation: Evaluation) -> dict[str, list[metrics.SampleOutcome]]:
    """{problem slug: scored samples} of an evaluation."""
    found: dict[str, list[metrics.SampleOutcome]] = {}
    for slug, correct, percentile, cost in (
        evaluation.samples.exclude(verdict="")
        .order_by("problem__slug", "index")
        .values_list("problem__slug", "correct", "speed_percentile", "cost_s")
    ):
        found.setdefault(slug, []).append(metrics.SampleOutcome(correct, percentile, cost))
    return found


def _reference_totals(item: EvalProblem) -> dict[str, float]:
    """Each reference's stored CPU seconds summed over the optimization tests (inf when it
    timed out on one, nan when a runtime is missing)."""
    costs = item.loaded.runtimes.reference_costs
    return {name: float(np.sum(costs[i])) for i, name in enumerate(item.loaded.references)}


def _complexity(evaluation: Evaluation, item: EvalProblem) -> dict | None:
    """Exponents of the problem's fastest correct sample and its Python references on its
    first generated optimization test's generator; None when there is nothing to fit."""
    from evaluations.complexity import measure_scaling
    from problems.models import ProblemTest, ReferenceSolution

    best = (
        evaluation.samples.filter(problem_id=item.problem_id, correct=True, cost_s__isnull=False)
        .order_by("cost_s", "index")
        .first()
    )
    if best is not None and not math.isfinite(best.cost_s):
        best = None  # every correct sample ran past the cap: nothing to fit
    test = (
        ProblemTest.objects.filter(
            pk__in=item.loaded.test_ids, generator__isnull=False, size__isnull=False
        )
        .select_related("generator")
        .order_by("name")
        .first()
    )
    if test is None:
        return None
    references = dict(
        ReferenceSolution.objects.filter(
            problem_id=item.problem_id, name__in=item.loaded.references, language="python"
        ).values_list("name", "code")
    )
    totals = _reference_totals(item)
    finite = {name: total for name, total in totals.items() if math.isfinite(total)}
    # the references are measured even without a sample: the fastest humans' share must not
    # depend on whether the model solved the problem
    programs = {**({"sample": best.program} if best else {}), **references}
    if not programs:
        return None
    report = measure_scaling(
        programs,
        test.generator.code,
        test.size,
        test.seed or 0,
        cap_s=item.scoring.cap_s,
    )
    reference_exponents = [report.exponents.get(name) for name in references]
    fastest = min(finite, key=finite.get) if finite else None
    improved = metrics.complexity_improved(
        report.exponents.get("sample"), reference_exponents, COMPLEXITY_MARGIN
    )
    if improved is None and any(e is not None for e in reference_exponents):
        improved = False  # no fitted sample: not improved (the same problems as the humans')
    return {
        "sample_index": best.index if best else None,
        "sample_exponent": report.exponents.get("sample"),
        "reference_exponents": {name: report.exponents.get(name) for name in references},
        "median_reference_exponent": (
            float(np.median([e for e in reference_exponents if e is not None]))
            if any(e is not None for e in reference_exponents)
            else None
        ),
        "fastest_reference": fastest,
        "improved": improved,
        "fastest_human_improved": (
            metrics.complexity_improved(
                report.exponents.get(fastest), reference_exponents, COMPLEXITY_MARGIN
            )
            if fastest in references
            else None
        ),
        "scaling": report.as_dict(),
    }


def _share(values: list[bool | None]) -> dict:
    known = [v for v in values if v is not None]
    return {
        "share": (sum(known) / len(known)) if known else None,
        "count": sum(known),
        "problems": len(known),
    }


def json_safe(value):
    """`value` with every NaN and infinity replaced by None: PostgreSQL's jsonb refuses them."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def summarize(
    evaluation: Evaluation, items: list[EvalProblem], complexity: dict[str, dict | None]
) -> dict:
    """The stored figures of a scored evaluation (docs/metrics.md)."""
    outcomes = outcomes_of(evaluation)
    slugs = [item.slug for item in items if item.slug in outcomes]
    samples = [outcomes[slug] for slug in slugs]
    estimates = metrics.p_tau(samples, evaluation.taus, seed=evaluation.seed)
    beats = {
        item.slug: metrics.beats_fastest_human(
            outcomes[item.slug], list(_reference_totals(item).values())
        )
        for item in items
        if item.slug in outcomes
    }
    per_problem = {}
    for slug in slugs:
        rows = outcomes[slug]
        per_problem[slug] = {
            "samples": len(rows),
            "correct": sum(r.correct for r in rows),
            "passes": {
                f"{tau:g}": sum(metrics.passes(r, tau) for r in rows) for tau in evaluation.taus
            },
            "median_cost_s": metrics.median_speed_cost(rows),
            "beats_fastest_human": beats[slug],
            "complexity": complexity.get(slug),
        }
    return {
        "n_problems": len(slugs),
        "p_tau": {f"{tau:g}": e.as_dict() for tau, e in estimates.items()},
        "beats_fastest_human": _share([beats[s] for s in slugs]),
        "complexity_improved": _share([(complexity.get(s) or {}).get("improved") for s in slugs]),
        "fastest_human_complexity_improved": _share(
            [(complexity.get(s) or {}).get("fastest_human_improved") for s in slugs]
        ),
        "per_problem": per_problem,
    }


def do_run_evaluation(evaluation_id: int, worker: str = "", on_progress=None) -> str:
    """The task body: generate (checkpoint or base model), score, fit exponents, summarize.
    A re-delivered evaluation starts over from the upload or from generation."""
    evaluation = Evaluation.objects.select_related("run").get(pk=evaluation_id)
    if evaluation.status in (Evaluation.Status.DONE, Evaluation.Status.FAILED):
        return evaluation.status
    Evaluation.objects.filter(pk=evaluation.pk).update(
        status=Evaluation.Status.RUNNING,
        started_at=timezone.now(),
        stage="loading problems",
        worker=worker,
    )
    generating = evaluation.source != Evaluation.Source.COMPLETIONS
    with failure_recorded(Evaluation.objects.filter(pk=evaluation.pk)):
        if generating:
            evaluation.samples.all().delete()
        else:
            evaluation.samples.update(verdict="", correct=False, speed_percentile=None, cost_s=None)
        with tempfile.TemporaryDirectory(prefix="codeopt-eval-") as folder:
            items = evaluation_problems(evaluation, Path(folder))
            count = len(items) * evaluation.n if generating else evaluation.samples.count()
            progress = _Progress(
                evaluation,
                (count if generating else 0) + count + (len(items) if evaluation.complexity else 0),
                on_progress,
            )
            if generating:
                _generate(evaluation, items, progress)
            _score(evaluation, items, progress)
            complexity: dict[str, dict | None] = {}
            if evaluation.complexity:
                for item in items:
                    progress.stage(f"scaling exponents of {item.slug}")
                    complexity[item.slug] = _complexity(evaluation, item)
                    progress.advance(1)
            results = json_safe(summarize(evaluation, items, complexity))
    Evaluation.objects.filter(pk=evaluation.pk).update(
        status=Evaluation.Status.DONE,
        stage="done",
        results=results,
        finished_at=timezone.now(),
    )
    return Evaluation.Status.DONE
