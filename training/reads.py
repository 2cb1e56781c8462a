"""Read helpers for the training pages: samples with filters, the problem x step heatmap."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from foundation.queueing import QueuedJob, Queues, queue_of_task, queued, sees
from runs.models import Run, RunStatus
from training.models import RolloutSample

PAGE_SIZE = 200
FAST_PERCENTILE = 50.0  # "fast" on the heatmap: correct and in the top half (eval/p50)


@dataclass
class SampleFilters:
    step: int | None = None
    problem: str = ""
    verdict: str = ""

    @classmethod
    def from_query(cls, query) -> SampleFilters:
        """The filters of a query string; ValueError naming the field at fault."""
        step = query.get("step", "").strip()
        if step and not step.isdigit():
            raise ValueError(f"step: {step!r} is not a step number (0, 1, 2, …)")
        return cls(
            step=int(step) if step else None,
            problem=query.get("problem", "").strip(),
            verdict=query.get("verdict", "").strip(),
        )


def samples(run, filters: SampleFilters):
    rows = RolloutSample.objects.filter(training__run=run).select_related("problem")
    if filters.step is not None:
        rows = rows.filter(step=filters.step)
    if filters.problem:
        rows = rows.filter(problem__slug=filters.problem)
    if filters.verdict:
        rows = rows.filter(verdict=filters.verdict)
    return rows.order_by("-step", "group", "index")[:PAGE_SIZE]


def sample_problems(run) -> list[str]:
    return list(
        RolloutSample.objects.filter(training__run=run)
        .values_list("problem__slug", flat=True)
        .distinct()
        .order_by("problem__slug")
    )


def outcome_heatmap(run) -> dict:
    """Per (problem, step): the share of samples correct, and correct and fast."""
    cells: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    rows = RolloutSample.objects.filter(training__run=run).values_list(
        "problem__slug", "step", "correct", "speed_percentile"
    )
    for slug, step, correct, percentile in rows:
        cell = cells[(slug, step)]
        cell[0] += 1
        cell[1] += bool(correct)
        cell[2] += bool(correct and percentile is not None and percentile <= FAST_PERCENTILE)
    problems = sorted({slug for slug, _ in cells})
    steps = sorted({step for _, step in cells})
    correct = [[_share(cells.get((p, s)), 1) for s in steps] for p in problems]
    fast = [[_share(cells.get((p, s)), 2) for s in steps] for p in problems]
    return {"problems": problems, "steps": steps, "correct": correct, "fast": fast}


def _share(cell, index: int) -> float | None:
    return None if cell is None else cell[index] / cell[0]


def job_label(run) -> str:
    """A training run as the queues name it ("training run #5")."""
    return f"training run #{run.pk}"


def waiting_text(queues: Queues, run) -> str:
    """What a queued training run waits for on its queue (the run page's progress line)."""
    return queues.waiting_text(queue_of_task("training.train"), job_label(run), run.created_at)


def progress(run, queues: Queues) -> dict:
    """A training run's progress as the run page shows it: its steps done of its total (the
    figure every page shows: TrainingRun.steps_done), the stage's count, the share of it
    done (the page's bar; None: nothing counted) and its estimate, and the page's progress
    line: running (or trained elsewhere), the stage with its count and estimate; queued, what
    it waits for (`waiting_text`); ended, none."""
    training = run.training
    text = ""
    if run.status == RunStatus.RUNNING or training.external:
        text = training.progress_text
    elif run.status == RunStatus.QUEUED:
        text = waiting_text(queues, run)
    return {
        "steps_done": training.steps_done,
        "steps_total": training.steps_total,
        "external": training.external,
        "done": training.progress_done,
        "total": training.progress_total,
        "share": training.progress_share,
        "remaining_s": training.remaining_s,
        "text": text,
    }


def queued_training_runs(user, teams) -> list[QueuedJob]:
    """Training runs queued or training (queue `gpu`; foundation.queueing)."""
    runs = Run.objects.filter(
        training__isnull=False, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
    ).select_related("training")
    return [
        queued(
            job_label(run),
            run.training,
            sees(teams, run.team_id),
            running=run.status == RunStatus.RUNNING,
            created_at=run.created_at,
            left=run.training.left(run.status == RunStatus.RUNNING),
        )
        for run in runs
    ]
