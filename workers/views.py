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


# -- training (issue 6) ------------------------------------------------------------------------

TRAIN_FORM_FIELDS = (
    "model",
    "reward_config",
    "group_size",
    "prompts_per_step",
    "learning_rate",
    "token_budget",
    "max_staleness_steps",
    "steps",
    "seed",
    "split",
    "scoring",
    "warm_start_steps",
    "max_new_tokens",
)
TRAIN_CHECKBOXES = ("token_weighted_baseline", "normalize_std", "baseline_program")


@login_required
def training_page(request):
    from rewards.models import RewardConfig
    from runs.services import check_team_for_new_run, user_teams, visible_runs
    from workers.training.config import TrainConfig

    error = None
    defaults = TrainConfig().as_dict()
    values = {name: defaults[name] for name in (*TRAIN_FORM_FIELDS, *TRAIN_CHECKBOXES)}
    values.update(name="", team="")
    if request.method == "POST":
        values = {name: request.POST.get(name, "") for name in TRAIN_FORM_FIELDS}
        values.update({name: request.POST.get(name, "") for name in TRAIN_CHECKBOXES})
        values.update(name=request.POST.get("name", ""), team=request.POST.get("team", ""))
        try:
            form = {k: v for k, v in values.items() if k not in ("name", "team")}
            config = TrainConfig.from_form(form)
            checked, reward = services.check_train_request(config.as_dict())
            team = check_team_for_new_run(request.user, values["team"] or None)
            run = services.do_start_training(
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
        "workers/training.html",
        {
            "error": error,
            "values": values,
            "rewards": RewardConfig.objects.all(),
            "teams": user_teams(request.user),
            "runs": runs,
        },
        status=400 if error else 200,
    )


@login_required
def training_stop(request, run_id: int):
    from django.http import Http404, HttpResponseNotAllowed

    from runs.models import Run
    from runs.services import check_can_see_run

    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    try:
        run = check_can_see_run(request.user, run_id)
    except Run.DoesNotExist:
        raise Http404("No such run") from None
    services.do_request_stop(run)
    return redirect("run-detail", run_id=run.pk)


@login_required
def run_samples(request, run_id: int):
    from django.http import Http404

    from runs.models import Run
    from runs.services import check_can_see_run
    from workers import reads

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
        "workers/samples.html",
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
