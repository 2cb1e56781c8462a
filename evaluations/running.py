"""Running an evaluation: its problems loaded with their tests, samples generated from the
checkpoint or base model, scored by the timing service's code, scaling exponents fitted.
Progress goes to the row as it advances. (evaluations.services.do_run_evaluation runs the
stages; the figures are evaluations.metrics.)"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings

from evaluations import metrics
from evaluations.complexity import measure_scaling
from evaluations.models import Evaluation, EvaluationSample
from foundation import inputs
from foundation.jobs import Progress
from lm.base_models import prompt_style
from lm.prompts import make_prompt
from problems.loading import function_task, slowest_reference
from problems.models import Problem, ProblemTest, ReferenceSolution
from rewards.engine import RewardConfig
from rewards.runtimes import loaded_problems
from scoring.problems import scoring_problem
from scoring.scorer import score_group_retrying
from training.services import checkpoint_steps

COMPLEXITY_MARGIN = 0.25
"""A program scales better than the median human when its exponent is lower by more than
this: exponents fitted over an 8x range of sizes move by about ±0.1 between runs here."""


@dataclass
class EvalProblem:
    slug: str
    problem_id: int
    prompt: str  # as the evaluated run was prompted (with its baseline program, if it was)
    scoring: object  # scoring.scorer.ScoringProblem
    loaded: object  # rewards.runtimes.LoadedProblem: reference names, optimization tests
    harness: str = ""  # after the function of a problem posed as one (problems.function_task)


def evaluation_problems(evaluation: Evaluation, folder: Path) -> list[EvalProblem]:
    """The evaluation's problems with their tests written under `folder`."""
    run_config = json.loads(evaluation.run.config) if evaluation.run else {}
    with_baseline = bool(run_config.get("baseline_program"))
    split = "" if evaluation.split == "all" else evaluation.split
    found = []
    for item in loaded_problems(split, evaluation.problem_slugs):
        (folder / item.slug).mkdir(parents=True, exist_ok=True)
        problem, scoring = scoring_problem(item, folder / item.slug)
        baseline = slowest_reference(problem, item) if with_baseline else None
        task = function_task(problem)
        prompt = make_prompt(
            problem.statement or problem.title,
            baseline,
            style=prompt_style(evaluation.model),
            function=task,
        )
        harness = task.harness if task else ""
        found.append(EvalProblem(item.slug, problem.pk, prompt, scoring, item, harness))
    return found


def generate(evaluation: Evaluation, problems: list[EvalProblem], progress: Progress) -> None:
    """n samples per problem from the checkpoint or base model, stored unscored."""
    # torch: loaded where evaluations run, not in the web process
    import torch

    from training.policy import load_checkpoint, load_policy
    from training.rollout import sample_groups

    if evaluation.source == Evaluation.Source.RUN:
        kept = checkpoint_steps(evaluation.run.training)
        if evaluation.step not in kept:  # the run went on and replaced it meanwhile
            raise ValueError(
                f"step: run {evaluation.run_id} no longer has its checkpoint at step "
                f"{evaluation.step} (it keeps {', '.join(str(k) for k in sorted(kept))})"
            )
        folder = kept[evaluation.step]
        seed = json.loads(evaluation.run.config).get("seed", 0)
        model, tokenizer = load_checkpoint(
            evaluation.model, folder, seed, cache_root=settings.CODEOPT_MODEL_CACHE
        )
    else:
        corpus = _reference_corpus(evaluation.problem_slugs)
        model, tokenizer = load_policy(
            evaluation.model, corpus, seed=evaluation.seed, cache_root=settings.CODEOPT_MODEL_CACHE
        )
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
            harnesses=[item.harness],
        )
        EvaluationSample.objects.bulk_create(
            EvaluationSample(
                evaluation=evaluation,
                problem_id=item.problem_id,
                index=index,
                completion=inputs.storable(sample.text),
                program=inputs.storable(sample.program or ""),
            )
            for index, sample in enumerate(samples)
        )
        progress.advance(evaluation.n)


def _reference_corpus(slugs: list[str]) -> list[str]:
    """What the tiny model's tokenizer is trained on: the problems' statements and programs."""
    texts = list(Problem.objects.filter(slug__in=slugs).values_list("statement", flat=True))
    texts += list(
        ReferenceSolution.objects.filter(problem__slug__in=slugs, language="python").values_list(
            "code", flat=True
        )
    )
    return texts


def score(evaluation: Evaluation, problems: list[EvalProblem], progress: Progress) -> None:
    """Score every sample; a problem whose group still fails in the sandbox raises
    SandboxError (the evaluation fails, retryable), never a verdict."""
    for item in problems:
        rows = list(evaluation.samples.filter(problem_id=item.problem_id).order_by("index"))
        if not rows:
            continue
        progress.stage(f"scoring {item.slug}: {len(rows)} programs")
        scores = score_group_retrying(
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


def reference_totals(item: EvalProblem) -> dict[str, float]:
    """Each reference's stored CPU seconds summed over the optimization tests (inf when it
    timed out on one, nan when a runtime is missing)."""
    costs = item.loaded.runtimes.reference_costs
    return {name: float(np.sum(costs[i])) for i, name in enumerate(item.loaded.references)}


def complexity_of(evaluation: Evaluation, item: EvalProblem) -> dict | None:
    """Exponents of the problem's fastest correct sample and its Python references on its
    first generated optimization test's generator; None when there is nothing to fit."""
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
    totals = reference_totals(item)
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
