"""Rank checks: a built problem's own correct Python programs scored again and again, as
training scores a group (scoring.scorer.rank_check), on a timing job. The Django
side: which problems can be checked, the request check, the job's result."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from rewards.models import RewardConfig
from rewards.runtimes import loaded_problems
from scoring.problems import scoring_problem
from scoring.scorer import rank_check
from timing.models import TimingJob


def check_rank_check(problem: str, reward_config: str, remeasure: int) -> None:
    """ValueError naming the field: a rank check needs a built problem with stored runtimes
    of at least two Python references, and a stored reward configuration."""
    if not 2 <= remeasure <= 20:
        raise ValueError("remeasure: must be between 2 and 20")
    if not RewardConfig.objects.filter(name=reward_config).exists():
        raise ValueError(f"reward_config: no stored configuration {reward_config!r}")
    if not loaded_problems("", [problem]):
        raise ValueError(
            f"problem: {problem!r} has no stored runtimes of two or more Python references "
            "on optimization tests; build it on the Dataset page first"
        )


def rank_check_result(job: TimingJob, on_progress) -> dict:
    """A built problem's own correct Python programs scored `remeasure` times as one group,
    with the job's reward configuration (scoring.scorer.rank_check)."""
    (item,) = loaded_problems("", [job.problem])
    ranking = RewardConfig.objects.get(name=job.reward_config).engine_config()
    with tempfile.TemporaryDirectory(prefix="codeopt-rank-check-") as folder:
        Path(folder).chmod(0o711)
        problem, scoring = scoring_problem(item, Path(folder))
        check = rank_check(
            _accepted_python(problem, item),
            scoring,
            ranking,
            remeasure=job.remeasure,
            workdir=Path(folder),
            on_progress=on_progress,
        )
    found = sorted(j for j in check.jitter.values() if j is not None)
    p95 = float(np.percentile(found, 95)) if found else None
    return {
        "problem": job.problem,
        "mode": "cpu",
        "reference_timing": ranking.reference_timing,
        "modes": {"cpu": {"jitter": p95, "cpu_cvs": []}},
        "programs": {
            name: {"percentiles": check.percentiles[name], "jitter": check.jitter[name]}
            for name in check.percentiles
        },
        "not_always_correct": sum(j is None for j in check.jitter.values()),
        "tie_bands": check.tie_bands,
        "seconds": check.seconds,
        "sandbox": {"unmeasured": []},
    }


def _accepted_python(problem, item) -> dict[str, str]:
    """The problem's Python references with stored runtimes: correct, of known order."""
    return dict(
        problem.solutions.filter(language="python", name__in=item.references).values_list(
            "name", "code"
        )
    )


def rank_check_choices() -> dict:
    """What the Timing page's rank-check form offers: the built problems that can be
    checked (stored runtimes of two or more Python references) and the reward configs."""
    return {
        "rank_problems": [item.slug for item in loaded_problems("")],
        "reward_configs": list(
            RewardConfig.objects.order_by("name").values_list("name", flat=True)
        ),
    }
