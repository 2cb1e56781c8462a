"""The worker's side of an API scoring job, after its programs are scored: the group kinds
and staleness it reports, and for a job with a run and a step, that step written to the run
as our own trainer writes its steps (training/sink.DatabaseSink): RolloutSample rows
and the step's metrics through runs.services.do_ingest_metrics."""

from __future__ import annotations

import math
from collections import Counter

from django.db import transaction

from problems.models import Problem
from runs.services import do_ingest_metrics
from scoring.models import ScoringJob
from training.models import RolloutSample


def staleness(step: int | None, policy_version: int | None) -> float | None:
    """Policy steps between the programs' generation and the step they train (the paper
    drops rollouts more than 30 behind); None unless both are known."""
    if step is None or policy_version is None:
        return None
    return float(max(step - policy_version, 0))


def group_kind(samples: list[dict]) -> str:
    """One group's kind, as group_counts tells them apart: all_negative / all_positive when
    every sample got the same reward (a zero is no credit: negative), else mixed."""
    rewards = {float(s["reward"]) for s in samples}
    if len(rewards) > 1:
        return "mixed"
    return "all_positive" if rewards.pop() > 0 else "all_negative"


def group_kinds(groups: list[list[dict]], tie_band: float) -> dict[str, float]:
    """Shares of the groups by kind, as our trainer counts them
    (training.advantages.group_counts): all_negative, all_positive, mixed,
    all_correct_tied."""
    # torch: loaded where scoring runs (the timing worker), not in the web process
    import torch

    from training.advantages import group_counts

    totals: dict[str, float] = {}
    # group_counts takes (P, G): groups of unequal sizes are counted size by size
    for size in sorted({len(g) for g in groups}):
        same = [g for g in groups if len(g) == size]
        counts = group_counts(
            torch.tensor([[s["reward"] for s in g] for g in same], dtype=torch.float64),
            torch.tensor([[s["correct"] for s in g] for g in same]),
            torch.tensor(
                [
                    [
                        math.nan if s["speed_percentile"] is None else s["speed_percentile"]
                        for s in g
                    ]
                    for g in same
                ],  # fmt: skip
                dtype=torch.float64,
            ),
            tie_band,
        )
        for key, share in counts.metrics().items():
            kind = key.split("/", 1)[1]
            totals[kind] = totals.get(kind, 0.0) + share * len(same)
    return {key: value / len(groups) for key, value in totals.items()}


def step_metrics(job: ScoringJob, groups: list[list[dict]], kinds: dict, staleness) -> dict:
    """The metrics our trainer logs for a step that the service can know: groups/*,
    rewards, pτ on the batch, sandbox verdicts, scoring latency, queue wait, staleness."""
    flat = [s for g in groups for s in g]
    count = len(flat)
    correct = [s for s in flat if s["correct"]]
    percentiles = [s["speed_percentile"] for s in correct if s["speed_percentile"] is not None]
    rewards = [s["reward"] for s in flat]
    mean = sum(rewards) / count
    metrics = {f"groups/{key}": value for key, value in kinds.items()}
    metrics.update(
        {
            "rewards/mean": mean,
            "rewards/std": math.sqrt(sum((r - mean) ** 2 for r in rewards) / count),
            "eval/p100": len(correct) / count,
            "eval/p50": sum(p <= 50 for p in percentiles) / count,
            "eval/p30": sum(p <= 30 for p in percentiles) / count,
            "timing/scoring_latency_s": max((s["seconds"] for s in flat), default=0.0),
        }
    )
    for verdict, seen in Counter(s["verdict"] for s in flat).items():
        metrics[f"sandbox/verdict_{verdict.lower()}"] = seen / count
    if job.queue_wait_s is not None:
        metrics["timing/queue_wait_s"] = job.queue_wait_s
    if staleness is not None:
        metrics["staleness/policy_steps"] = staleness
    return metrics


def do_record_external_step(job: ScoringJob, groups: list[list[dict]], metrics: dict) -> None:
    """Write the scored step to the job's run: its samples (a step scored again replaces
    its rows: a re-delivered job writes the same) and its metrics (idempotent on run, step,
    key). Precondition: job.training and job.step are set."""
    request = job.request
    slugs = {g["problem"] for g in request["groups"]}
    ids = dict(Problem.objects.filter(slug__in=slugs).values_list("slug", "pk"))
    rows = []
    for index, (sent, scored) in enumerate(zip(request["groups"], groups, strict=True)):
        texts = sent.get("completions") or sent["programs"]
        for position, (text, program, score) in enumerate(
            zip(texts, sent["programs"], scored, strict=True)
        ):
            rows.append(
                RolloutSample(
                    training=job.training,
                    step=job.step,
                    problem_id=ids[sent["problem"]],
                    group=index,
                    index=position,
                    completion=text or "",
                    program=program or "",
                    reward=score["reward"],
                    verdict=score["verdict"],
                    correct=score["correct"],
                    speed_percentile=score["speed_percentile"],
                    policy_version=job.policy_version
                    if job.policy_version is not None
                    else job.step,
                    tokens=0,  # not known here: the trainer tokenized
                    truncated=False,
                )
            )
    with transaction.atomic():
        RolloutSample.objects.filter(training=job.training, step=job.step).delete()
        RolloutSample.objects.bulk_create(rows)
    points = [
        {"step": job.step, "key": key, "value": None if value != value else float(value)}
        for key, value in sorted(metrics.items())
    ]
    do_ingest_metrics(job.training.run_id, {"points": points})


def record_api_job(job: ScoringJob, groups: list[list[dict]]) -> dict:
    """What an API job's result holds beside the scores (group kinds, staleness), and, with
    a run and a step, that step written to the run (do_record_external_step)."""
    request = job.request
    kinds = group_kinds(groups, request["tie_band"])
    stale = staleness(job.step, job.policy_version)
    if job.training_id is not None and job.step is not None:
        job.refresh_from_db(fields=["started_at", "created_at"])
        do_record_external_step(job, groups, step_metrics(job, groups, kinds, stale))
    return {"group_kinds": kinds, "kinds": [group_kind(g) for g in groups], "staleness": stale}
