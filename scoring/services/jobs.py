"""The scoring API's services: a request checked field by field (foundation.inputs; a bad
field is an InputError naming it, before anything is stored or queued), the ScoringJob
stored and queued on `timing`, and the job as the API answers it.

The worker's side is scoring/coordinator.do_score_rollouts (the same task our own
trainer's steps run), then scoring/record.py for an external run's step."""

from __future__ import annotations

import json
import time

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet

from foundation import inputs
from foundation.jobs import ENDED, JobStatus
from foundation.queueing import QueuedJob, queued, sees
from foundation.sending import enqueue
from lm.prompts import extract_program
from problems.loading import harnesses
from rewards.models import RewardConfig
from rewards.runtimes import loaded_problems
from runs.models import Run
from runs.services import check_can_see_run, visible_runs
from scoring.models import ScoringJob
from training.models import TrainingRun

FIELDS = ("reward_config", "groups", "run", "step", "policy_version", "tie_band", "request_key")
GROUP_FIELDS = ("problem", "programs", "completions")
DEFAULT_TIE_BAND = 5.0
"""Percentile points within which an all-correct group counts as tied (TrainConfig.tie_band's
default: the groups/all_correct_tied our own trainer logs)."""
EXTERNAL = "external"
"""TrainingRun.config key of a run trained elsewhere (its samples come through the API)."""


class RunNotFound(LookupError):
    """The request's run does not exist or is another team's (a 404, nothing queued)."""


class TooManyInFlight(RuntimeError):
    """The caller has CODEOPT_SCORING_MAX_IN_FLIGHT jobs queued or running (a 429)."""


def visible_scoring_jobs(user) -> QuerySet[ScoringJob]:
    """The jobs a user sees: staff all; others their own and those of their teams' runs."""
    jobs = ScoringJob.objects.select_related("training")
    if user.is_staff:
        return jobs
    return jobs.filter(Q(owner=user) | Q(training__run__in=visible_runs(user)))


def _programs(where: str, raw: object, *, completions: bool, harness: str) -> list[str | None]:
    if not isinstance(raw, list) or not raw:
        raise inputs.InputError(where, "must be a non-empty list of texts")
    limit = settings.CODEOPT_SCORING_MAX_PROGRAM_BYTES
    programs: list[str | None] = []
    for index, value in enumerate(raw):
        name = f"{where}[{index}]"
        if value is None and not completions:
            programs.append(None)  # no program: scored as a format failure
            continue
        text = inputs.text(name, value, max_chars=limit)
        if len(text.encode()) > limit:
            raise inputs.InputError(name, f"{len(text.encode()):,} bytes; at most {limit:,}")
        programs.append(extract_program(text, harness) if completions else text)
    return programs


def check_scoring_request(user, data: object) -> dict:
    """The request as stored (ScoringJob.request, with "run", "step", "policy_version"),
    checked before anything is written:

    1. the body is an object with known fields only;
    2. `reward_config` names a stored configuration;
    3. `groups`: 1 or more, each {problem, programs | completions}; every problem built (its
       Python references have stored runtimes on optimization tests); at most
       CODEOPT_SCORING_MAX_PROGRAMS texts in all, each at most
       CODEOPT_SCORING_MAX_PROGRAM_BYTES; completions become programs as our trainer
       extracts them (None without a closing fence: FORMAT; the problem's harness after
       the function of a problem posed as one, problems.function_task);
    4. `run` (one the user can see, else RunNotFound) needs `step`; a run our own trainer
       trains is refused; `step`, `policy_version` whole numbers >= 0, `tie_band` in [0, 100];
    5. `request_key`, optional: text of at most 100 characters (do_submit_scoring).
    """
    inputs.json_object(data, FIELDS)
    name = inputs.text("reward_config", data.get("reward_config"), max_chars=100)
    reward = RewardConfig.objects.filter(name=name).first()
    if reward is None:
        raise inputs.InputError("reward_config", f"no stored configuration {name[:100]!r}")
    groups = data.get("groups")
    if not isinstance(groups, list) or not groups:
        raise inputs.InputError("groups", "must be a non-empty list of {problem, programs}")
    most = settings.CODEOPT_SCORING_MAX_PROGRAMS
    posed_as_function = harnesses(
        g.get("problem")
        for g in groups
        if isinstance(g, dict) and isinstance(g.get("problem"), str)
    )
    checked = []
    total = 0
    for index, group in enumerate(groups):
        where = f"groups[{index}]"
        inputs.json_object(group, GROUP_FIELDS, where=where)
        slug = inputs.text(f"{where}.problem", group.get("problem"), max_chars=120)
        if ("programs" in group) == ("completions" in group):
            raise inputs.InputError(where, "needs either programs or completions")
        kind = "completions" if "completions" in group else "programs"
        total += len(group[kind]) if isinstance(group[kind], list) else 0
        if total > most:
            raise inputs.InputError("groups", f"more than {most:,} programs; at most {most:,}")
        programs = _programs(
            f"{where}.{kind}",
            group[kind],
            completions=kind == "completions",
            harness=posed_as_function.get(slug, ""),
        )
        entry = {"problem": slug, "programs": programs}
        if kind == "completions":
            entry["completions"] = group["completions"]
        checked.append(entry)
    built = {p.slug for p in loaded_problems("", sorted({g["problem"] for g in checked}))}
    for index, group in enumerate(checked):
        if group["problem"] not in built:
            raise inputs.InputError(
                f"groups[{index}].problem", f"no built problem {group['problem'][:120]!r}"
            )
    step = inputs.number("step", data.get("step"), low=0, high=inputs.MAX_ID, whole=True)
    version = inputs.number(
        "policy_version", data.get("policy_version"), low=0, high=inputs.MAX_ID, whole=True
    )
    tie_band = inputs.number(
        "tie_band", data.get("tie_band"), low=0, high=100, default=DEFAULT_TIE_BAND
    )
    run_id = inputs.record_id("run", data.get("run"))
    if run_id is not None:
        try:
            run = check_can_see_run(user, run_id)
        except Run.DoesNotExist:
            raise RunNotFound(f"run: no run {run_id} that you can see") from None
        if step is None:
            raise inputs.InputError("step", "required with run (the step the samples belong to)")
        training = TrainingRun.objects.filter(run=run).first()
        if training is not None and not training.config.get(EXTERNAL):
            raise inputs.InputError("run", f"run {run_id} is trained by codeopt's own trainer")
        if run.reward_config_id is not None and run.reward_config_id != reward.pk:
            raise inputs.InputError(
                "reward_config", f"run {run_id} trains with {run.reward_config.name!r}"
            )
    key = data.get("request_key")
    key = "" if key is None else inputs.text("request_key", key, max_chars=100)
    return {
        "request_key": key,
        "reward_config": reward.engine_config().as_dict(),
        "reward_config_name": reward.name,
        "groups": checked,
        "tie_band": tie_band,
        "run": run_id,
        "step": step,
        "policy_version": version,
    }


def external_training(run_id: int) -> TrainingRun:
    """The TrainingRun row of a run trained elsewhere (made on its first scored step): what
    RolloutSample rows hang on, so the Samples page, heatmaps and judge pairs read external
    runs as they read ours. It has no checkpoints and no task."""
    training, _ = TrainingRun.objects.get_or_create(
        run_id=run_id, defaults={"config": {EXTERNAL: True}, "checkpoint_dir": ""}
    )
    return training


def do_submit_scoring(user, data: object, *, in_flight_limit: int | None = None) -> ScoringJob:
    """Check the request, store the job, queue `scoring.score_rollouts` after commit.
    Raises InputError (400), RunNotFound (404) or TooManyInFlight (429); nothing is stored
    or queued then.

    A request sent again with the `request_key` of one already stored (a client's retry
    after its answer was lost) answers that job and queues nothing; the same key with
    another body is refused. The lock on the user's jobs in flight orders two at once;
    `in_flight_limit` replaces CODEOPT_SCORING_MAX_IN_FLIGHT (gathered groups: one job each)."""
    request = check_scoring_request(user, data)
    key = request.pop("request_key")
    with transaction.atomic():
        in_flight = ScoringJob.objects.select_for_update().filter(
            owner=user, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
        )
        in_flight = list(in_flight)
        earlier = ScoringJob.objects.filter(owner=user, request_key=key).first() if key else None
        if earlier is not None:
            if earlier.request != json.loads(json.dumps(request)):  # as stored: lists
                raise inputs.InputError(
                    "request_key", f"job {earlier.pk} was queued under this key with another body"
                )
            return earlier
        limit = in_flight_limit or settings.CODEOPT_SCORING_MAX_IN_FLIGHT
        if len(in_flight) >= limit:
            raise TooManyInFlight(f"{limit} scoring jobs queued or running; at most {limit}")
        training = external_training(request["run"]) if request["run"] else None
        job = ScoringJob.objects.create(
            owner=user,
            training=training,
            step=request["step"],
            policy_version=request["policy_version"],
            request=request,
            request_key=key,
        )
        enqueue("scoring.score_rollouts", job.pk)
    return job


def wait_for_job(job: ScoringJob, wait_s: float, poll_s: float = 0.1) -> ScoringJob:
    """The job once it has ended, or as it is after `wait_s` seconds (the long-poll)."""
    deadline = time.monotonic() + wait_s
    while job.status not in ENDED and time.monotonic() < deadline:
        time.sleep(min(poll_s, max(deadline - time.monotonic(), 0)))
        job.refresh_from_db()
    return job


SAMPLE_FIELDS = ("reward", "verdict", "correct", "speed_percentile", "seconds")


def scoring_answer(job: ScoringJob) -> dict:
    """The job as GET /api/scoring/<id>/ answers it; groups and kinds once done, samples in
    the order sent."""
    request = job.request
    result = job.result if isinstance(job.result, dict) else {}
    groups = []
    scored_by = result.get("workers") or []
    for index, (sent, scored) in enumerate(
        zip(request["groups"], result.get("groups", []), strict=False)
    ):
        samples = [
            {**{k: score.get(k) for k in SAMPLE_FIELDS}, "program": program}
            for score, program in zip(scored, sent["programs"], strict=True)
        ]
        worker = scored_by[index] if index < len(scored_by) else None
        kinds = result.get("kinds") or []
        kind = kinds[index] if index < len(kinds) else None
        groups.append(
            {"problem": sent["problem"], "samples": samples, "worker": worker, "kind": kind}
        )
    return {
        "id": job.pk,
        "status": job.status,
        "progress": job.progress,
        "stage": job.stage,
        "error": job.error,
        "reward_config": request.get("reward_config_name", request["reward_config"]["name"]),
        "run": request.get("run"),
        "step": job.step,
        "policy_version": job.policy_version,
        "queue_wait_s": job.queue_wait_s,
        "staleness": result.get("staleness"),
        "groups": groups,
        "group_kinds": result.get("group_kinds"),
        "sandbox": result.get("sandbox"),
    }


def queued_scoring_jobs(user, teams) -> list[QueuedJob]:
    """Scoring jobs queued or running (queue `timing`; foundation.queueing): a training
    run's step, named to its team; a request through the API without a run, to its owner."""
    active = ScoringJob.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
    found = []
    for job in active.select_related("training__run", "owner"):
        if job.training is not None:
            run = job.training.run
            label = f"scoring of training run #{run.pk}, step {job.step}"
            mine = sees(teams, run.team_id)
        else:
            label = f"scoring request #{job.pk}"
            mine = user.is_staff or job.owner_id == user.pk
        found.append(queued(label, job, mine))
    return found
