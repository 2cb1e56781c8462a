"""Pages that compose several domains: the runs list (with the demo's panel) and a run's page
(its metrics, its training's progress and checkpoints, its evaluations). Each domain's own
pages are in its app's views.py; these sit at the top because they read from all of them."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import render

from evaluations import reads as evaluation_reads
from foundation import inputs
from foundation.queueing import Queues
from foundation.tenancy import user_teams
from runs import reads as run_reads
from runs import services as run_services
from runs.models import Run, RunStatus
from training import reads as training_reads
from training.config import stored_degraded_timing
from training.services import checkpoint_steps
from workers.demo import read_demo_status

LIST_METRICS = ["rewards/mean", "eval/p50", "groups/all_negative"]


@login_required
def run_list(request):
    params = request.GET
    runs = run_services.search_runs(
        run_services.visible_runs(request.user).select_related("reward_config", "training"),
        text=params.get("q", "").strip(),
        status=params.get("status", ""),
        team=params.get("team", ""),
    )[:200]
    runs = list(runs)
    config_keys, config_cells = run_reads.config_table(runs)
    rows = [
        (run, state, cells)
        for run, state, cells in zip(runs, _list_state(runs), config_cells, strict=True)
    ]
    return render(
        request,
        "runs/run_list.html",
        {
            "rows": rows,
            "metric_keys": LIST_METRICS,
            "config_keys": config_keys,
            "shown_config_keys": run_reads.default_columns(config_keys),
            "statuses": [choice.value for choice in RunStatus],
            "teams": user_teams(request.user),
            "params": params,
            "demo": read_demo_status(settings.VAR_DIR / "demo-status.json"),
        },
    )


def _list_state(runs: list[Run]) -> list[dict]:
    """Each listed run's live cells, the one read behind the runs list, the Training page and
    their poll (`run_list_live`): status, last step, the last values of LIST_METRICS and, for
    a training run, its steps done of its total and its stage (TrainingRun.steps_done)."""
    latest = run_reads.latest_values([r.pk for r in runs], LIST_METRICS)
    states = []
    for run in runs:
        training = getattr(run, "training", None) if hasattr(run, "training") else None
        state = {
            "id": run.pk,
            "status": run.status,
            "last_step": run.last_step,
            "metrics": [latest[run.pk].get(key, "") for key in LIST_METRICS],
            "steps": None,
            "stage": None,
        }
        if training is not None:
            total = training.steps_total
            state["steps"] = f"{training.steps_done} / {'–' if total is None else total}"
            state["stage"] = training.stage_text or "–"
        states.append(state)
    return states


@login_required
def run_list_live(request):
    """The runs list's live cells for the runs it shows (`ids`, at most 200) and the demo's
    panel, polled by static/runs/run_list.js while something on it is queued or running:
    the same reads as the page (`_list_state`, read_demo_status)."""
    try:
        ids = inputs.record_ids("ids", request.GET.get("ids", ""), most=200)
    except inputs.InputError as exc:
        return JsonResponse({exc.field: [str(exc).split(": ", 1)[1]]}, status=400)
    runs = run_services.visible_runs(request.user).filter(pk__in=ids).order_by("pk")
    runs = list(runs.select_related("training"))
    return JsonResponse(
        {
            "metric_keys": LIST_METRICS,
            "runs": _list_state(runs),
            "demo": read_demo_status(settings.VAR_DIR / "demo-status.json"),
        }
    )


@login_required
def run_detail(request, run_id: int):
    try:
        run = run_services.check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    checkpoints = []
    degraded_timing = None  # the run's timing degraded on purpose (experiments): its banner
    if hasattr(run, "training"):
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
    counts = evaluation_reads.split_counts() if hasattr(run, "training") else {}
    return {
        "splits": evaluation_reads.split_options(counts, evaluation_reads.default_split(counts)),
        **_progress_context(request, run),
    }


def _progress_context(request, run) -> dict:
    training = getattr(run, "training", None)
    waiting = ""
    if training is not None and run.status == RunStatus.QUEUED:
        waiting = training_reads.waiting_text(Queues(request.user), run)
    evaluations = evaluation_reads.run_rows(request.user, run)
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
        run = run_services.check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    return render(
        request, "runs/_run_progress.html", {"run": run, **_progress_context(request, run)}
    )
