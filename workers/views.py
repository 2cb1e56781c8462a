"""The Timing page: submit measurement jobs and rank checks, watch them, read the noise
statistics, retry a job that failed in the sandbox."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from execution.anchors import ANCHORS
from execution.engine import LANGUAGES, MODES
from foundation import inputs
from timing import fidelity, rank_checks
from timing import services as timing_services
from timing.models import TimingJob
from workers import reads, retry
from workers.process.health import check_calibration, check_queues, check_sandbox

FORM_FIELDS = ("package_dir", "source", "language", "modes", "kind", "problem", "reward_config")


@login_required
def timing_page(request):
    error = None
    values = {
        "language": "python",
        "modes": "cpu",
        "kind": "measure",
        "repeats": 5,
        "remeasure": 5,
        "reward_config": "binary-top30",  # the paper's best: rank checks default to it
    }
    if request.method == "POST":
        values = {name: request.POST.get(name, "") for name in FORM_FIELDS}
        try:
            values["repeats"] = inputs.number(
                "repeats", request.POST.get("repeats"), low=1, high=50, default=5, whole=True
            )
            values["remeasure"] = inputs.number(
                "remeasure", request.POST.get("remeasure"), low=2, high=20, default=5, whole=True
            )
        except ValueError as exc:
            error = str(exc)
        if error is None:
            try:
                timing_services.do_submit_timing_job(request.user, **values)
                return redirect("timing")
            except ValueError as exc:
                error = str(exc)
    return render(
        request,
        "workers/timing.html",
        {
            "error": error,
            "values": values,
            "languages": list(LANGUAGES),
            "modes": MODES,
            "kinds": [TimingJob.Kind.MEASURE, TimingJob.Kind.JITTER],
            **rank_checks.rank_check_choices(),
            "calibration": {**check_calibration(), "anchor_count": len(ANCHORS)},
            "mode_noise": fidelity.mode_noise_chart(),
        },
    )


@login_required
def timing_data(request):
    jobs = reads.timing_jobs(request.user)[: reads.TIMING_JOBS_SHOWN]
    return JsonResponse(
        {
            "jobs": reads.timing_job_rows(jobs),
            "queues": check_queues(),
            "sandbox": check_sandbox(),
            "calibration": check_calibration(),
            "sandbox_failures": reads.sandbox_failures(request.user),
        }
    )


@require_POST
@login_required
def timing_retry(request, kind: str, job_id: str):
    """The Retry button of a job that failed in the sandbox."""
    try:
        retry.do_retry_job(request.user, kind, job_id)
    except LookupError as exc:
        raise Http404(str(exc)) from None
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc))
    return redirect("timing")


# -- training (issue 6) ------------------------------------------------------------------------
