"""Pages: authenticate, pick what the user may see, render. Charts load data from the API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from runs import services
from runs.models import Run, RunStatus

LIST_METRICS = ["rewards/mean", "eval/p50", "groups/all_negative"]


@login_required
def run_list(request):
    params = request.GET
    runs = services.search_runs(
        services.visible_runs(request.user),
        text=params.get("q", "").strip(),
        status=params.get("status", ""),
        team=params.get("team", ""),
    )[:200]
    runs = list(runs)
    latest = services.latest_values([r.pk for r in runs], LIST_METRICS)
    rows = [(run, [latest[run.pk].get(key, "") for key in LIST_METRICS]) for run in runs]
    return render(
        request,
        "runs/run_list.html",
        {
            "rows": rows,
            "metric_keys": LIST_METRICS,
            "statuses": [choice.value for choice in RunStatus],
            "teams": services.user_teams(request.user),
            "params": params,
        },
    )


@login_required
def run_detail(request, run_id: int):
    try:
        run = services.check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    checkpoints = []
    if hasattr(run, "training"):
        from workers.services import checkpoint_steps

        checkpoints = sorted(checkpoint_steps(run.training))
    return render(
        request,
        "runs/run_detail.html",
        {"run": run, "runs": [run], "checkpoints": checkpoints},
    )


@login_required
def run_compare(request):
    raw = request.GET.get("ids", "")
    try:
        ids = [int(part) for part in raw.split(",") if part.strip()]
    except ValueError:
        raise Http404("ids must be run numbers separated by commas") from None
    runs = list(services.visible_runs(request.user).filter(pk__in=ids))
    if not runs or len(runs) != len(set(ids)):
        raise Http404("No such run")
    return render(request, "runs/run_compare.html", {"runs": runs})
