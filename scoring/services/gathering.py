"""Samples sent one at a time, gathered into their group before one job scores them.

verl's reward loop calls a reward function once per sample, from several Ray workers at once;
OpenRLHF's remote reward POSTs one sample per request. Our rewards are relative to a group (a
program is ranked among the programs of its prompt), so a sample scored alone would lose what
the reward is about. Here every sample names its group (verl's `uid`, OpenRLHF's prompt) and
the service gathers it:

1. check_gather_request: the fields, each named when refused, before anything is stored;
2. do_gather: in one transaction the samples join the open gather of (owner, group key) or
   open one, which closes `window_s` seconds later; a gather that reaches `group_size`
   samples closes at once. Closing queues one ScoringJob for the whole group (its
   request_key is the gather's, so a second closer gets the same job back);
3. gathered_answer: waits for the gather to close (closing it when its time has come) and
   for its job, then answers each sample as the job scored it, with its group's kind and
   size. A job failed in the sandbox is GatherFailed(sandbox=True): no reward is made up.

One thread per gather and web process polls the database (`_Watch`); the requests waiting on
that gather hold no database connection meanwhile, so 64 waiting requests are not 64
connections.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, close_old_connections, connection, transaction
from django.utils import timezone

from foundation import inputs
from foundation.jobs import ENDED, JobStatus
from scoring.models import ScoringGather, ScoringJob
from scoring.services.jobs import (
    TooManyInFlight,
    check_scoring_request,
    do_submit_scoring,
    scoring_answer,
)

log = logging.getLogger("codeopt.scoring")

GATHER_FIELDS = ("reward_config", "problem", "completions", "group", "group_size", "window_s")
POLL_S = 0.1
"""How often a gather's watch reads the database (as scoring.services.wait_for_job)."""


class GatherFailed(RuntimeError):
    """The gathered group got no scores: its job failed (in the sandbox when `sandbox`) or
    could not be queued. `job_id` names the job to retry from the Timing page."""

    def __init__(self, message: str, *, sandbox: bool = False, job_id: int | None = None):
        super().__init__(message)
        self.sandbox = sandbox
        self.job_id = job_id


def check_gather_request(user, data: object) -> dict:
    """The gather request, checked: `reward_config` and `problem` as POST /api/scoring/
    checks them (check_scoring_request: a stored configuration, a built problem, each
    completion's size), `completions` 1 or more texts of one group, `group` the client's
    name for the group (at most 200 characters), `group_size` the samples that complete it
    (1..CODEOPT_SCORING_MAX_PROGRAMS), `window_s` how long the group waits for them
    (0..CODEOPT_GATHER_MAX_WINDOW_S, default CODEOPT_GATHER_WINDOW_S)."""
    inputs.json_object(data, GATHER_FIELDS)
    group = inputs.text("group", data.get("group"), max_chars=200)
    size = inputs.number(
        "group_size",
        data.get("group_size"),
        low=1,
        high=settings.CODEOPT_SCORING_MAX_PROGRAMS,
        whole=True,
    )
    if size is None:
        raise inputs.InputError("group_size", "required: the samples that complete the group")
    window = inputs.number(
        "window_s",
        data.get("window_s"),
        low=0,
        high=settings.CODEOPT_GATHER_MAX_WINDOW_S,
        default=settings.CODEOPT_GATHER_WINDOW_S,
    )
    completions = data.get("completions")
    body = {
        "reward_config": data.get("reward_config"),
        "groups": [{"problem": data.get("problem"), "completions": completions}],
    }
    try:
        checked = check_scoring_request(user, body)
    except inputs.InputError as exc:  # name the field as this request calls it
        name = exc.field.replace("groups[0].", "").replace("groups", "completions")
        problem = str(exc).split(": ", 1)[-1]
        raise inputs.InputError(name, problem) from None
    problem = checked["groups"][0]["problem"]
    reward = checked["reward_config_name"]
    digest = hashlib.sha256(f"{group}\0{problem}\0{reward}".encode()).hexdigest()
    return {
        "key": digest,
        "group_size": int(size),
        "window_s": float(window),
        "request": {"reward_config": reward, "problem": problem},
        "completions": list(completions),
    }


def do_gather(user, checked: dict) -> tuple[int, list[int]]:
    """Add the checked samples to their open gather (opening one); returns the gather's id
    and the samples' places in it. Closes the gather once it holds group_size samples."""
    for _ in range(3):  # two requests opening the same gather at once: the second joins
        try:
            with transaction.atomic():
                gather = (
                    ScoringGather.objects.select_for_update()
                    .filter(owner=user, key=checked["key"], open=True)
                    .first()
                )
                if gather is None:
                    now = timezone.now()
                    gather = ScoringGather.objects.create(
                        owner=user,
                        key=checked["key"],
                        request=checked["request"],
                        group_size=checked["group_size"],
                        opened_at=now,
                        closes_at=now + timedelta(seconds=checked["window_s"]),
                    )
                first = len(gather.completions)
                gather.completions = gather.completions + checked["completions"]
                gather.save(update_fields=["completions"])
                if len(gather.completions) >= gather.group_size:
                    _close(gather)
                return gather.pk, list(range(first, len(gather.completions)))
        except IntegrityError:
            continue
    raise RuntimeError(f"could not join or open a gather for group key {checked['key'][:12]}")


def _close(gather: ScoringGather) -> None:
    """Close the gather (row locked by the caller) and queue its job; a full queue
    (TooManyInFlight) leaves it closed without a job, for the next poll to queue."""
    gather.open = False
    body = {
        "reward_config": gather.request["reward_config"],
        "groups": [{"problem": gather.request["problem"], "completions": gather.completions}],
        "request_key": f"gather-{gather.pk}",
    }
    try:
        limit = settings.CODEOPT_GATHER_MAX_IN_FLIGHT
        gather.job = do_submit_scoring(gather.owner, body, in_flight_limit=limit)
    except TooManyInFlight:
        pass
    except inputs.InputError as exc:  # checked sample by sample: a server change since
        gather.error = str(exc)
    gather.save(update_fields=["open", "job", "error"])


def _advance(gather_id: int) -> ScoringGather:
    """The gather, closed when its time has come and queued when the queue has room."""
    with transaction.atomic():
        gather = ScoringGather.objects.select_for_update().get(pk=gather_id)
        due = gather.open and timezone.now() >= gather.closes_at
        if due or (not gather.open and gather.job_id is None and not gather.error):
            _close(gather)
    return gather


@dataclass
class _Watch:
    """One gather watched by one thread of this process until its job has ended."""

    gather_id: int
    done: threading.Event = field(default_factory=threading.Event)
    answer: dict | None = None
    failure: GatherFailed | None = None


_watches: dict[int, _Watch] = {}
_watches_lock = threading.Lock()


def _watch_until_ended(watch: _Watch, deadline: float) -> None:
    import time  # the poll's clock: only this thread sleeps

    try:
        while time.monotonic() < deadline:
            gather = _advance(watch.gather_id)
            if gather.error:
                watch.failure = GatherFailed(f"group not scored: {gather.error}")
                return
            if gather.job_id is not None:
                job = ScoringJob.objects.get(pk=gather.job_id)
                if job.status in ENDED:
                    _ended(watch, job, gather)
                    return
            time.sleep(POLL_S)
        watch.failure = GatherFailed("the group was not scored in time: is a timing worker up?")
    except Exception as exc:  # the gather gone (deleted), the database down: said, not a 500
        log.exception("watching gather %s failed", watch.gather_id)
        watch.failure = GatherFailed(f"the group's gather could not be read: {exc}")
    finally:
        with _watches_lock:
            _watches.pop(watch.gather_id, None)
        watch.done.set()
        connection.close()


def _ended(watch: _Watch, job: ScoringJob, gather: ScoringGather) -> None:
    if job.status == JobStatus.DONE:
        watch.answer = {**scoring_answer(job), "gathered": len(gather.completions)}
        return
    sandbox = job.error.startswith("SandboxError")
    where = "in the sandbox" if sandbox else ""
    message = f"scoring job {job.pk} failed {where}: {job.error}".replace("  ", " ")
    watch.failure = GatherFailed(message, sandbox=sandbox, job_id=job.pk)


def gathered_answer(gather_id: int, positions: list[int], wait_s: float) -> list[dict]:
    """Each sample's score once its group's job has ended (at most `wait_s` seconds):
    reward, verdict, correct, speed_percentile, seconds, program, and `group` {kind, size,
    job}. Raises GatherFailed (the job failed, could not be queued, or did not end in
    time)."""
    import time  # a deadline for this request

    deadline = time.monotonic() + wait_s
    with _watches_lock:
        watch = _watches.get(gather_id)
        if watch is None:
            watch = _watches[gather_id] = _Watch(gather_id)
            limit = time.monotonic() + settings.CODEOPT_GATHER_MAX_WAIT_S
            threading.Thread(
                target=_watch_until_ended, args=(watch, limit), daemon=True, name="gather"
            ).start()
    close_old_connections()
    connection.close()  # held by nobody while waiting
    if not watch.done.wait(max(deadline - time.monotonic(), 0.0)):
        raise GatherFailed(
            f"the group was not scored within {wait_s:g} s (is a timing worker consuming "
            f"`timing`? the Timing page shows its queue)"
        )
    if watch.failure is not None:
        raise watch.failure
    group = watch.answer["groups"][0]
    about = {"kind": group["kind"], "size": watch.answer["gathered"], "job": watch.answer["id"]}
    return [{**group["samples"][place], "group": about} for place in positions]


def samples_of(data: object) -> tuple[list[dict], dict]:
    """POST /api/scoring/samples/'s body as do_score_gathered takes it: the samples
    [{problem, group, completion}] and the options {reward_config, group_size, window_s}
    (each checked there, per group)."""
    inputs.json_object(data, GATHER_FIELDS)
    texts = data.get("completions")
    if not isinstance(texts, list) or not texts:
        raise inputs.InputError("completions", "must be a non-empty list of texts")
    options = {k: data.get(k) for k in ("reward_config", "group_size", "window_s")}
    return [
        {"problem": data.get("problem"), "group": data.get("group"), "completion": text}
        for text in texts
    ], options


def do_score_gathered(
    user, samples: list[dict], options: dict, *, names: dict | None = None
) -> list[dict]:
    """Score samples sent alone or a few at a time, each in its group; their answers in the
    order sent (gathered_answer). samples: [{problem, group, completion}]; options:
    {reward_config, group_size, window_s}; `names` renames refused fields as the caller's
    protocol calls them ({"problem": "labels", "completions": "query"}: `labels[3]`).

    1. the samples are grouped by (problem, group), in the order sent;
    2. every group is checked before anything is stored (one refused: nothing gathered);
    3. each group's samples join its gather (do_gather);
    4. the answers are awaited within CODEOPT_GATHER_ANSWER_S in all."""
    import time  # one deadline for the whole request

    deadline = time.monotonic() + settings.CODEOPT_GATHER_ANSWER_S
    groups: dict[tuple, list[int]] = {}
    for index, sample in enumerate(samples):
        for name in ("problem", "group"):  # a key before the checks below: text first
            if not isinstance(sample[name], str):
                wrong = inputs.InputError(name, f"must be text, not {type(sample[name]).__name__}")
                raise _renamed(wrong, [index], names or {})
        groups.setdefault((sample["problem"], sample["group"]), []).append(index)
    checked = []
    for (problem, group), indexes in groups.items():
        body = {
            **options,
            "problem": problem,
            "group": group,
            "completions": [samples[i]["completion"] for i in indexes],
        }
        try:
            checked.append(check_gather_request(user, body))
        except inputs.InputError as exc:
            raise _renamed(exc, indexes, names or {}) from None
    answers: list[dict | None] = [None] * len(samples)
    waits = []
    for indexes, request in zip(groups.values(), checked, strict=True):
        gather_id, positions = do_gather(user, request)
        waits.append((indexes, gather_id, positions))
    for indexes, gather_id, positions in waits:
        left = max(deadline - time.monotonic(), 0.0)
        for index, answer in zip(indexes, gathered_answer(gather_id, positions, left), strict=True):
            answers[index] = answer
    return answers


def _renamed(exc: inputs.InputError, indexes: list[int], names: dict) -> inputs.InputError:
    """A group's refused field named as the request names it: `completions[1]` of the group
    of samples 4, 7 is `query[7]`; `problem` is `labels[4]`."""
    field, problem = str(exc).split(": ", 1)
    head, _, rest = field.partition("[")
    if head in names:
        at = indexes[int(rest.rstrip("]"))] if rest else indexes[0]
        field = f"{names[head]}[{at}]"
    return inputs.InputError(field, problem)
