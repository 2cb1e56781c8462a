"""The Training page (start a GRPO run, list them), a run's stop button and its Samples page."""

from __future__ import annotations

import dataclasses

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseNotAllowed
from django.shortcuts import redirect, render

from foundation.tenancy import check_team_for_new_run, user_teams
from rewards.models import RewardConfig
from runs.models import Run
from runs.services import check_can_see_run, visible_runs
from training import reads
from training import services as training_services
from training.config import TrainConfig
from training.model_choice import model_choices

TRAIN_CHECKBOXES = tuple(f.name for f in dataclasses.fields(TrainConfig) if f.type == "bool")
TRAIN_FORM_FIELDS = tuple(
    f.name for f in dataclasses.fields(TrainConfig) if f.name not in TRAIN_CHECKBOXES
)
"""Every TrainConfig field is on the form (the template lays them out; a test checks)."""


@login_required
def training_page(request):
    error = None
    defaults = TrainConfig().form_values()
    values = {name: defaults[name] for name in (*TRAIN_FORM_FIELDS, *TRAIN_CHECKBOXES)}
    values.update(model="", name="", team="")  # the model is chosen, never assumed
    if request.method == "POST":
        values = {name: request.POST.get(name, "") for name in TRAIN_FORM_FIELDS}
        values.update({name: request.POST.get(name, "") for name in TRAIN_CHECKBOXES})
        values.update(name=request.POST.get("name", ""), team=request.POST.get("team", ""))
        try:
            form = {k: v for k, v in values.items() if k not in ("name", "team")}
            config = TrainConfig.from_form(form)
            checked, reward = training_services.check_train_request(config.as_dict())
            team = check_team_for_new_run(request.user, values["team"] or None)
            run = training_services.do_start_training(
                owner=request.user,
                team=team,
                name=values["name"].strip() or f"grpo-{checked.reward_config}",
                config=checked,
                reward=reward,
            )
            return redirect("run-detail", run_id=run.pk)
        except ValueError as exc:
            error = str(exc)
    runs = (
        visible_runs(request.user)
        .filter(training__isnull=False)
        .select_related("training", "reward_config")[:50]
    )
    return render(
        request,
        "training/training.html",
        {
            "error": error,
            "values": values,
            "config_class": TrainConfig,
            "model_choices": model_choices(),
            "rewards": RewardConfig.objects.all(),
            "teams": user_teams(request.user),
            "runs": runs,
        },
        status=400 if error else 200,
    )


@login_required
def training_stop(request, run_id: int):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        run = check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    training_services.do_request_stop(run)
    return redirect("run-detail", run_id=run.pk)


@login_required
def run_samples(request, run_id: int):
    try:
        run = check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    try:
        filters, error, status = reads.SampleFilters.from_query(request.GET), "", 200
    except ValueError as exc:
        filters, error, status = reads.SampleFilters(), str(exc), 400
    return render(
        request,
        "training/samples.html",
        {
            "run": run,
            "error": error,
            "filters": filters,
            "samples": reads.samples(run, filters),
            "problems": reads.sample_problems(run),
            "heatmap": reads.outcome_heatmap(run),
        },
        status=status,
    )
