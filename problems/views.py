"""Problem-set pages: list, problem, dataset builds (funnel), calibration."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe

from foundation import inputs, liveness
from problems import reads, services
from problems.models import Calibration, DatasetBuild, Problem
from problems.pipeline import PipelineConfig
from problems.statements import statement_html

BUILD_FORM_FIELDS = (
    "slow_target_s",
    "repeats",
    "generator_candidates",
    "min_ratio",
    "min_rank_stability",
    "test_fraction",
)


@login_required
def problem_list(request):
    filters, error = reads.ProblemFilters.from_query(request.GET)
    return render(
        request,
        "problems/problem_list.html",
        {
            "problems": reads.problems(filters),
            "filters": filters,
            "error": error,
            **reads.filter_choices(),
        },
    )


@login_required
def problem_detail(request, slug: str):
    problem = get_object_or_404(Problem, slug=slug)
    latest = reads.latest_problem_build(problem)
    return render(
        request,
        "problems/problem_detail.html",
        {
            "problem": problem,
            # raw HTML off, math sanitized: problems.statements
            "statement": mark_safe(statement_html(problem.statement)),  # noqa: S308
            "tests": problem.tests.select_related("generator").defer("input_gz", "answer_gz"),
            "solutions": problem.solutions.order_by("verdict_label", "name"),
            "latest": latest,
            "runtimes": reads.runtime_points(problem),
            "generators": reads.generator_rows(problem),
            "probe_curves": reads.probe_curves(problem),
        },
    )


@login_required
def dataset_page(request):
    error = None
    defaults = PipelineConfig().as_dict()
    values = {name: defaults[name] for name in BUILD_FORM_FIELDS}
    values["problems"] = ""
    if request.method == "POST":
        values = {name: request.POST.get(name, "").strip() for name in BUILD_FORM_FIELDS}
        values["problems"] = request.POST.get("problems", "")
        settings = {k: v for k, v in values.items() if k != "problems" and v != ""}
        try:
            config, slugs = services.check_build_request(settings, values["problems"].split())
            services.do_create_build(config, slugs, started_by=request.user.username)
            return redirect("dataset")
        except ValueError as exc:
            error = str(exc)
    builds = DatasetBuild.objects.all()
    selected = (
        builds.filter(pk=inputs.record_id("build", request.GET.get("build"), 0)).first()
        or builds.filter(status="done").first()
    )
    return render(
        request,
        "problems/dataset.html",
        {
            "error": error,
            "values": values,
            "config_class": PipelineConfig,
            "selected": selected,
            "outcomes": selected.problems.select_related("problem") if selected else [],
            "funnel": selected.funnel if selected else [],
            "generator_funnel": reads.generator_funnel_rows(selected),
        },
    )


@login_required
def dataset_data(request):
    beats = liveness.heartbeats()
    return JsonResponse(
        {"builds": [reads.build_row(b, beats) for b in DatasetBuild.objects.all()[:50]]}
    )


@login_required
def calibration_page(request):
    calibrations = Calibration.objects.all()
    chosen = inputs.record_id("id", request.GET.get("id"), 0)
    selected = calibrations.filter(pk=chosen).first() or calibrations.first()
    return render(
        request,
        "problems/calibration.html",
        {
            "calibrations": calibrations[:50],
            "selected": selected,
            "selected_data": reads.calibration_row(selected) if selected else None,
        },
    )
