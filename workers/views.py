"""The Timing page: submit measurement jobs, watch them, and read the noise statistics."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render

from workers import services
from workers.execution.engine import LANGUAGES, MODES
from workers.health import check_queues
from workers.models import TimingJob

FORM_FIELDS = ("package_dir", "source", "language", "modes", "kind")


def _jobs(user):
    jobs = TimingJob.objects.select_related("owner")
    return jobs if user.is_staff else jobs.filter(owner=user)


@login_required
def timing_page(request):
    error = None
    values = {"language": "python", "modes": "cpu", "kind": "measure", "repeats": 5, "remeasure": 5}
    if request.method == "POST":
        values = {name: request.POST.get(name, "") for name in FORM_FIELDS}
        try:
            values["repeats"] = int(request.POST.get("repeats", "5"))
            values["remeasure"] = int(request.POST.get("remeasure", "5"))
        except ValueError:
            error = "repeats/remeasure: must be whole numbers"
        if error is None:
            try:
                services.do_submit_timing_job(request.user, **values)
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
            "kinds": TimingJob.Kind.values,
        },
    )


@login_required
def timing_data(request):
    jobs = list(_jobs(request.user)[:100])
    return JsonResponse({"jobs": [_job_row(job) for job in jobs], "queues": check_queues()})


def _job_row(job: TimingJob) -> dict:
    result = job.result or {}
    row = {
        "id": str(job.id),
        "kind": job.kind,
        "owner": job.owner.username,
        "package": job.package_dir.rstrip("/").rsplit("/", 1)[-1],
        "language": job.language,
        "modes": job.modes,
        "status": job.status,
        "progress_done": job.progress_done,
        "progress_total": job.progress_total,
        "attempts": job.attempts,
        "worker": job.worker,
        "created_at": job.created_at.isoformat(),
        "queue_wait_s": job.queue_wait_s,
        "duration_s": job.duration_s,
        "error": job.error[:300],
        "verdict": result.get("verdict"),
        "speed_percentile": result.get("speed_percentile"),
        "executions": result.get("executions"),
        "cpu_cvs": [t["cpu_cv"] for t in result.get("tests", []) if t.get("cpu_cv") is not None],
        "jitter": {m: v["jitter"] for m, v in result.get("modes", {}).items()},
    }
    for mode_result in result.get("modes", {}).values():
        row["cpu_cvs"] += mode_result.get("cpu_cvs", [])
    return row
