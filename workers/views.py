"""The Timing page: submit measurement jobs and rank checks, watch them, read the noise
statistics, retry a job that failed in the sandbox."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponseBadRequest, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from execution.anchors import ANCHORS
from execution.engine import LANGUAGES, MODES
from foundation import inputs
from foundation.jobs import JobStatus, failed_in_sandbox
from timing import fidelity, rank_checks
from timing import services as timing_services
from timing.models import TimingJob
from workers import reads, retry
from workers.process import rescue
from workers.process.health import check_calibration, check_queues, check_sandbox

FORM_FIELDS = ("package_dir", "source", "language", "modes", "kind", "problem", "reward_config")


def _jobs(user):
    jobs = TimingJob.objects.select_related("owner")
    return jobs if user.is_staff else jobs.filter(owner=user)


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
    jobs = list(_jobs(request.user)[:100])
    beats = rescue.heartbeats() if any(j.status == JobStatus.RUNNING for j in jobs) else {}
    return JsonResponse(
        {
            "jobs": [_job_row(job, beats) for job in jobs],
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


def _job_row(job: TimingJob, beats: dict) -> dict:
    """A job as the Timing page's table shows it; a running job whose worker has gone silent
    (`beats`: rescue.heartbeats()) shows as "lost" with why, until a live worker's
    sweep sends it again (workers/process/rescue.py)."""
    result = job.result or {}
    status, error = job.status, job.error
    if status == JobStatus.RUNNING and job.worker:
        lost = rescue.gone_why(job.worker, job.started_at, beats, timezone.now())
        if lost:
            status, error = "lost", f"{lost}: a live worker sends it again"
    row = {
        "id": str(job.id),
        "kind": job.kind,
        "owner": job.owner.username,
        "package": job.problem or job.package_dir.rstrip("/").rsplit("/", 1)[-1],
        "language": job.language,
        "modes": job.modes,
        "status": status,
        "progress_done": job.progress_done,
        "progress_total": job.progress_total,
        "attempts": job.attempts,
        "worker": job.worker,
        "created_at": job.created_at.isoformat(),
        "queue_wait_s": job.queue_wait_s,
        "duration_s": job.duration_s,
        "error": error[:300],
        "verdict": result.get("verdict"),
        "speed_percentile": result.get("speed_percentile"),
        "executions": result.get("executions"),
        "cpu_cvs": [t["cpu_cv"] for t in result.get("tests", []) if t.get("cpu_cv") is not None],
        "jitter": {m: v["jitter"] for m, v in result.get("modes", {}).items()},
        "sandbox_errors": (result.get("sandbox") or {}).get("errors"),
        "retry_url": (
            reverse("timing-retry", args=["timing", job.pk]) if failed_in_sandbox(job) else None
        ),
    }
    for mode_result in result.get("modes", {}).values():
        row["cpu_cvs"] += mode_result.get("cpu_cvs", [])
    return row


# -- training (issue 6) ------------------------------------------------------------------------
