"""Pages: authenticate, pick what the user may see, render. Charts load data from the API."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from codeopt_site import inputs
from runs import reads, services
from runs.models import Run, RunStatus
from workers.demo import read_demo_status
from workers.training.config import stored_degraded_timing

LIST_METRICS = ["rewards/mean", "eval/p50", "groups/all_negative"]


@login_required
def run_list(request):
    params = request.GET
    runs = services.search_runs(
        services.visible_runs(request.user).select_related("reward_config"),
        text=params.get("q", "").strip(),
        status=params.get("status", ""),
        team=params.get("team", ""),
    )[:200]
    runs = list(runs)
    latest = reads.latest_values([r.pk for r in runs], LIST_METRICS)
    config_keys, config_cells = reads.config_table(runs)
    rows = [
        (run, [latest[run.pk].get(key, "") for key in LIST_METRICS], cells)
        for run, cells in zip(runs, config_cells, strict=True)
    ]
    return render(
        request,
        "runs/run_list.html",
        {
            "rows": rows,
            "metric_keys": LIST_METRICS,
            "config_keys": config_keys,
            "shown_config_keys": reads.default_columns(config_keys),
            "statuses": [choice.value for choice in RunStatus],
            "teams": services.user_teams(request.user),
            "params": params,
            "demo": read_demo_status(settings.VAR_DIR / "demo-status.json"),
        },
    )


@login_required
def run_detail(request, run_id: int):
    try:
        run = services.check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    checkpoints = []
    degraded_timing = None  # the run's timing degraded on purpose (experiments): its banner
    if hasattr(run, "training"):
        from workers.training.services import checkpoint_steps

        checkpoints = sorted(checkpoint_steps(run.training))
        degraded_timing = stored_degraded_timing(run.training.config)
        if not degraded_timing.active:
            degraded_timing = None
    return render(
        request,
        "runs/run_detail.html",
        {
            "run": run,
            "runs": [run],
            "checkpoints": checkpoints,
            "degraded_timing": degraded_timing,
            **_evaluate_context(request, run),
        },
    )


def _evaluate_context(request, run) -> dict:
    """The run page's Evaluate form (its split choices) and its progress section."""
    from evaluations import reads

    counts = reads.split_counts() if hasattr(run, "training") else {}
    return {
        "splits": reads.split_options(counts, reads.default_split(counts)),
        **_progress_context(request, run),
    }


def _progress_context(request, run) -> dict:
    from evaluations import reads

    training = getattr(run, "training", None)
    waiting = ""
    if training is not None and run.status == RunStatus.QUEUED:
        from workers.queues import Queues, queue_of_task

        waiting = Queues(request.user).waiting_text(
            queue_of_task("workers.train"), f"training run #{run.pk}", run.created_at
        )
    evaluations = reads.run_rows(request.user, run)
    training_active = training is not None and run.status in (RunStatus.QUEUED, RunStatus.RUNNING)
    return {
        "training_waiting": waiting,
        "evaluations": evaluations,
        "progress_active": training_active
        or any(r["status"] in ("queued", "running") for r in evaluations["rows"]),
    }


@login_required
def run_progress(request, run_id: int):
    """The run page's progress section alone (its script polls it while work is queued or
    running): the training's stage and estimate, the run's evaluations."""
    try:
        run = services.check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    return render(
        request, "runs/_run_progress.html", {"run": run, **_progress_context(request, run)}
    )


@login_required
def run_compare(request):
    raw = request.GET.get("ids", "")
    ids = inputs.record_ids("ids", raw)
    runs = list(
        services.visible_runs(request.user).select_related("reward_config").filter(pk__in=ids)
    )
    if not runs or len(runs) != len(set(ids)):
        raise Http404("No such run")
    return render(
        request, "runs/run_compare.html", {"runs": runs, "compared": reads.compared_runs(runs)}
    )
