"""The Rewards page: configurations, simulator results, and the forms that change them."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from foundation import inputs, liveness
from foundation.tenancy import user_teams
from rewards import reads, services
from rewards.models import RewardConfig, Simulation

DEFAULT_FIELDS = "speed_bar: 30\ncombination: binary\n"


@login_required
def rewards_page(request):
    errors: dict[str, str] = {}
    status = None
    simulate_values = {
        "configs": [c.name for c in RewardConfig.objects.all()],
        "noise_cvs": "0, 0.05, 0.2",
        "group_size": "16",
        "problems": "",
        "split": "",
        "negative_control": False,
    }
    config_values = {"name": "", "description": "", "fields": DEFAULT_FIELDS, "team": ""}
    if request.method == "POST" and request.POST.get("form") == "simulate":
        simulate_values = {
            "configs": request.POST.getlist("configs"),
            "noise_cvs": request.POST.get("noise_cvs", ""),
            "group_size": request.POST.get("group_size", "").strip(),
            "problems": request.POST.get("problems", ""),
            "split": request.POST.get("split", ""),
            "negative_control": request.POST.get("negative_control") == "on",
        }
        try:
            checked = services.check_simulation_request(
                config_names=simulate_values["configs"],
                noise_cvs=simulate_values["noise_cvs"],
                group_size=simulate_values["group_size"],
                problem_slugs=simulate_values["problems"].split(),
                split=simulate_values["split"],
                rank_against="own_outputs" if simulate_values["negative_control"] else "references",
            )
            services.do_create_simulation(**checked, started_by=request.user.username)
            return redirect(reverse("rewards") + "#simulations")
        except ValueError as exc:
            errors["simulate"] = str(exc)
    elif request.method == "POST" and request.POST.get("form") == "config":
        config_values = {
            k: request.POST.get(k, "") for k in ("name", "description", "fields", "team")
        }
        try:
            config = services.check_config_form(config_values["name"], config_values["fields"])
            row = services.do_save_config(
                config,
                description=config_values["description"].strip(),
                user=request.user.username,
                actor=request.user,
                team=services.check_config_team(request.user, config_values["team"]),
            )
            return redirect(reverse("rewards") + f"#config-{row.pk}")
        except ValueError as exc:
            errors["config"] = str(exc)
        except PermissionDenied as exc:
            errors["config"], status = str(exc), 403
    selected = reads.selected_simulation(request.GET.get("simulation"))
    ranking = reads.latest_ranking()
    return render(
        request,
        "rewards/rewards.html",
        {
            "configs": reads.config_rows(selected, request.user, ranking),
            "ranking": ranking,
            "selected": selected,
            "selected_data": reads.simulation_chart_data(selected) if selected else None,
            "errors": errors,
            "simulate": simulate_values,
            "config_form": config_values,
            "teams": user_teams(request.user),
        },
        status=status or (400 if errors else 200),
    )


@login_required
@require_POST
def recommend(request, config_id: int):
    get_object_or_404(RewardConfig, pk=config_id)
    flag = request.POST.get("recommended")
    if flag not in ("0", "1"):
        raise inputs.InputError("recommended", f"1 recommends, 0 withdraws; not {flag!r}")
    services.do_set_recommended(
        config_id, flag == "1", user=request.user.username, actor=request.user
    )
    return redirect(reverse("rewards") + f"#config-{config_id}")


@login_required
def simulations_data(request):
    beats = liveness.heartbeats()
    return JsonResponse(
        {"simulations": [reads.simulation_row(s, beats) for s in Simulation.objects.all()[:30]]}
    )
