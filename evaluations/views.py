"""The Evaluations page: start an evaluation (also from a run page), follow its progress,
compare any selected evaluations (table, pτ over τ, win-rate matrix) and export them."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from evaluations import reads, services
from foundation import jsonlines
from foundation.tenancy import check_team_for_new_run, user_teams
from runs.services import visible_runs
from training.model_choice import model_choices
from training.services import checkpoint_steps

FORM_FIELDS = (
    "source", "run", "step", "model", "split", "problems", "n", "temperature", "seed",
    "max_new_tokens", "taus", "name", "team",
)  # fmt: skip
DEFAULTS = {
    "source": "run",
    "model": "tiny",
    "n": "20",
    "temperature": "1.0",
    "seed": "0",
    "max_new_tokens": "256",
    "complexity": True,
}


@login_required
def evaluations_page(request):
    counts = reads.split_counts()
    default_split = reads.default_split(counts)
    error = ""
    values = {**DEFAULTS, "split": default_split, "run": request.GET.get("run", "")}
    if request.method == "POST":
        values = {name: request.POST.get(name, "") for name in FORM_FIELDS}
        values["complexity"] = request.POST.get("complexity") == "on"
        try:
            request_ = services.check_evaluation_request(
                request.user,
                values,
                jsonlines.read_upload(request.FILES.get("completions"), "completions"),
            )
            run_team = request_.run.team if request_.run is not None else None
            team = check_team_for_new_run(request.user, values["team"] or None, run_team)
            evaluation = services.do_create_evaluation(request.user, team, request_)
            if request.POST.get("back") == "run" and request_.run is not None:
                # started from the run's page: follow it there
                return redirect(
                    reverse("run-detail", args=[request_.run.pk])
                    + f"#run-evaluation-{evaluation.pk}"
                )
            return redirect(reverse("evaluations") + f"#evaluation-{evaluation.pk}")
        except ValueError as exc:
            error = str(exc)
    compare, compare_error = None, ""
    if request.GET.get("compare"):
        try:
            chosen = reads.chosen(request.user, request.GET["compare"], "compare")
            compare = {
                "ids": ",".join(str(e.pk) for e in chosen),
                "data": reads.comparison(chosen),
            }
        except ValueError as exc:
            compare_error = str(exc)
    runs = [
        (run, sorted(checkpoint_steps(run.training)))
        for run in visible_runs(request.user)
        .filter(training__isnull=False)
        .select_related("training")[:100]
    ]
    return render(
        request,
        "evaluations/evaluations.html",
        {
            "error": error,
            "values": values,
            "splits": reads.split_options(counts, default_split),
            "runs": runs,
            "teams": user_teams(request.user),
            "compare": compare,
            "compare_error": compare_error,
            "model_choices": model_choices(),
        },
        status=400 if error or compare_error else 200,
    )


@login_required
def evaluations_data(request):
    """Every visible evaluation with its progress and headline figures (polled by the page)."""
    return JsonResponse({"evaluations": reads.list_rows(request.user)})


@login_required
def evaluations_csv(request):
    try:
        chosen = reads.chosen(request.user, request.GET.get("ids", ""), "ids")
        if not chosen:
            raise ValueError("ids: choose at least one evaluation")
    except ValueError as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain")
    response = HttpResponse(reads.comparison_csv(chosen), content_type="text/csv")
    name = "-".join(str(e.pk) for e in chosen)
    response["Content-Disposition"] = f'attachment; filename="evaluations-{name}.csv"'
    return response
