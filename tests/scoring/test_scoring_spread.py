"""The groups of one scoring job spread over the timing workers (issue 18, item 2): two real
Celery timing workers score one job's groups between them, the answer in the order sent; a
part is claimed once whatever the messages, a part left by a worker that stopped beating is
taken over, and a retried job scores again only what had not been scored."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from execution.samples import FAST, SLOW
from foundation.liveness import WorkerHeartbeat
from scoring import calibration, coordinator
from scoring.models import ScoringJob, ScoringPart
from scoring.services import do_submit_scoring, scoring_answer
from scripts.readiness import celery_worker_argv
from tests.conftest import Process, subprocess_env, wait_for_status, wait_until

WRONG = FAST.replace("sum(nums)", "sum(nums) + 1")


def _request(groups: list[list[str | None]]) -> dict:
    return {
        "reward_config": "binary-top50",
        "groups": [{"problem": "sum", "programs": programs} for programs in groups],
    }


def _job(alice, groups) -> ScoringJob:
    job = do_submit_scoring(alice, _request(groups))
    return ScoringJob.objects.get(pk=job.pk)


def _timing_worker(name: str, log) -> Process:
    argv = celery_worker_argv("--pool", "threads", "--concurrency", "1", "-Q", "timing")
    argv += ["-n", f"{name}@%h"]
    return Process(argv, subprocess_env(), log)


@pytest.mark.django_db(transaction=True)
def test_two_timing_workers_share_the_groups_of_one_job(built, alice, tmp_path):
    tag = f"spread{os.getpid()}"
    workers = [_timing_worker(f"{tag}-{n}", tmp_path / f"{n}.log") for n in ("a", "b")]
    try:
        for worker in workers:
            wait_until(
                lambda w=worker: "ready." in w.output() or not w.alive(), 90, "a worker to start"
            )
            assert worker.alive(), worker.output()
        # a worker calibrates when it starts, and refuses scoring while its anchors disagree
        # (a burst of load beside the test); a job posted then tells nothing about sharing
        names = [f"{tag}-{n}@{socket.gethostname()}" for n in ("a", "b")]
        fitness = {}

        def both_fit() -> bool:
            fitness.update({n: calibration.host_fitness(n) for n in names})
            return all(f.calibrated and not f.reason for f in fitness.values())

        try:
            wait_until(both_fit, 6 * calibration.RETRY_S, "both workers calibrated, fit", 1.0)
        except AssertionError as exc:
            raise AssertionError(f"{exc}: {fitness}") from None
        # each group's verdicts tell its place: the answer must keep the order sent
        groups = [[FAST, WRONG], [WRONG, FAST, None], [SLOW], [None, FAST], [WRONG], [FAST]]
        job = _job(alice, groups)
        wait_for_status(workers[0], job, ("done", "failed"), 300, "the scoring job")
        job.refresh_from_db()
        assert job.status == "done", (job.error, workers[0].output(), workers[1].output())
        verdicts = [[s["verdict"] for s in group] for group in job.result["groups"]]
        name = {FAST: "OK", SLOW: "OK", WRONG: "WRONG_ANSWER", None: "FORMAT"}
        assert verdicts == [[name[p] for p in group] for group in groups]
        scored_by = {w.split("@")[0] for w in job.result["workers"]}
        assert {f"{tag}-a", f"{tag}-b"} <= scored_by  # both scored some of its groups
        answer = scoring_answer(job)  # what GET /api/scoring/<id>/ says of it
        assert [g["worker"] for g in answer["groups"]] == job.result["workers"]
        assert ScoringPart.objects.filter(job=job, status="done").count() == len(groups)
    finally:
        for worker in workers:
            worker.stop()


@pytest.mark.django_db
def test_a_part_is_scored_once_and_one_left_by_a_gone_worker_is_taken_over(built, alice):
    job = _job(alice, [[FAST], [WRONG], [SLOW]])
    coordinator._open_parts(job)
    long_ago = timezone.now() - timedelta(minutes=5)
    WorkerHeartbeat.objects.create(hostname="alive@h", last_seen=timezone.now())
    ScoringPart.objects.filter(job=job, index=1).update(
        status="running", worker="gone@h", started_at=long_ago
    )
    ScoringPart.objects.filter(job=job, index=2).update(
        status="running", worker="alive@h", started_at=long_ago
    )
    # an offer of a part another live worker scores is skipped
    assert coordinator.do_score_part(job.pk, 2, "other@h") == "taken"
    ScoringPart.objects.filter(job=job, index=2).update(status="queued", worker="")

    assert coordinator.do_score_rollouts(job.pk, "coordinator@h") == "done"
    parts = ScoringPart.objects.filter(job=job).order_by("index")
    me = f"coordinator@h#{os.getpid()}:{threading.get_ident()}"
    assert [p.worker for p in parts] == [me] * 3  # the gone worker's part too
    job.refresh_from_db()
    assert [g[0]["verdict"] for g in job.result["groups"]] == ["OK", "WRONG_ANSWER", "OK"]
    # offers that arrive after the job ended score nothing
    assert coordinator.do_score_part(job.pk, 0, "late@h") == "ended"
    assert ScoringPart.objects.get(job=job, index=0).worker == me
    # the job's own message delivered again after it finished (issue 20): nothing is scored
    ended = (job.finished_at, job.result, job.worker)
    assert coordinator.do_score_rollouts(job.pk, "again@h") == "done"
    job.refresh_from_db()
    assert (job.finished_at, job.result, job.worker) == ended
    assert [p.worker for p in ScoringPart.objects.filter(job=job)] == [me] * 3


@pytest.mark.django_db
def test_a_part_of_a_dead_process_of_the_same_worker_is_taken_over_not_one_of_a_live_one(
    built, alice
):
    """Prefork: a worker's processes share its name and heartbeat; the process that died
    while scoring is told apart from a sibling still scoring by its pid."""
    job = _job(alice, [[FAST], [WRONG]])
    coordinator._open_parts(job)
    WorkerHeartbeat.objects.create(hostname="timing@h", last_seen=timezone.now())
    ended = subprocess.Popen(["true"])
    ended.wait()
    sibling = subprocess.Popen(["sleep", "60"])
    try:
        ScoringPart.objects.filter(job=job, index=0).update(
            status="running", worker=f"timing@h#{ended.pid}", started_at=timezone.now()
        )
        ScoringPart.objects.filter(job=job, index=1).update(
            status="running", worker=f"timing@h#{sibling.pid}", started_at=timezone.now()
        )
        assert coordinator.do_score_part(job.pk, 1, "timing@h") == "taken"  # the sibling scores it
        # the coordinator, delivered again to the worker, takes the dead process's part
        taken = coordinator._next_part(job, "timing@h")
        assert taken is not None and taken.index == 0
        ScoringPart.objects.filter(pk=taken.pk).update(status="done")
        assert coordinator._next_part(job, "timing@h") is None  # not the sibling's
        # a sibling thread of this process scoring a part is not taken over either
        ScoringPart.objects.filter(job=job, index=1).update(
            worker=f"timing@h#{os.getpid()}:{threading.get_ident() + 1}"
        )
        assert coordinator._next_part(job, "timing@h") is None
        ScoringPart.objects.filter(job=job).update(status="queued", worker="")
        assert coordinator.do_score_part(job.pk, 0, "timing@h") == "done"
        assert coordinator.do_score_rollouts(job.pk, "timing@h") == "done"
    finally:
        sibling.kill()
        sibling.wait()


@pytest.mark.django_db
def test_a_retried_job_keeps_the_groups_already_scored(built, alice):
    job = _job(alice, [[FAST], [WRONG]])
    coordinator._open_parts(job)
    kept = dict(reward=0.5, verdict="OK", correct=True, speed_percentile=50.0, seconds=0.1)
    kept.update(rank_jitter=None, repeat_cv=None, sandbox_errors=0)
    sandbox = {"errors": 0, "gave_up": 0, "last_error": ""}
    ScoringPart.objects.filter(job=job, index=0).update(
        status="done", worker="first@h", result={"scores": [kept], "sandbox": sandbox}
    )
    ScoringPart.objects.filter(job=job, index=1).update(
        status="failed", worker="first@h", error="SandboxError: could not start"
    )
    assert coordinator.do_score_rollouts(job.pk, "w@h") == "done"
    job.refresh_from_db()
    assert job.result["groups"][0] == [kept]  # not scored again
    assert job.result["groups"][1][0]["verdict"] == "WRONG_ANSWER"  # the failed one was
    assert job.result["workers"] == ["first@h", f"w@h#{os.getpid()}:{threading.get_ident()}"]


@pytest.mark.django_db
def test_a_part_failing_on_another_worker_fails_the_job_as_retryable(built, alice, monkeypatch):
    job = _job(alice, [[FAST], [WRONG]])
    opened = coordinator._open_parts

    def offered_then_failed_elsewhere(job):
        queued = opened(job)
        ScoringPart.objects.filter(job=job, index=1).update(
            status="failed", worker="other@h", error="SandboxError: fork refused"
        )
        return queued

    monkeypatch.setattr(coordinator, "_open_parts", offered_then_failed_elsewhere)
    with pytest.raises(Exception, match="fork refused"):
        coordinator.do_score_rollouts(job.pk, "w@h")
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "SandboxError: fork refused"
    assert job.result is None  # no reward for any group, not even the one scored


@pytest.mark.django_db
def test_the_coordinator_writes_its_progress_when_a_part_ends_not_at_every_look(
    built, alice, monkeypatch
):
    """While another worker scores the last part, the coordinator looks every PART_POLL_S;
    its job row is written when the count of done parts moves (it was written at every
    look: ten writes a second for as long as the other part took)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    job = _job(alice, [[FAST], [FAST]])
    coordinator._open_parts(job)
    WorkerHeartbeat.objects.create(hostname="other@h", last_seen=timezone.now())
    ScoringPart.objects.filter(job=job, index=1).update(
        status="running", worker="other@h#1:1", started_at=timezone.now()
    )
    looks = []

    def the_other_worker_finishes_after_20_looks(seconds):
        looks.append(seconds)
        if len(looks) == 20:  # what the other worker writes when its part is scored
            mine = ScoringPart.objects.get(job=job, index=0)
            ScoringPart.objects.filter(job=job, index=1).update(
                status="done", result=mine.result, finished_at=timezone.now()
            )

    monkeypatch.setattr(coordinator.time, "sleep", the_other_worker_finishes_after_20_looks)
    with CaptureQueriesContext(connection) as queries:
        assert coordinator.do_score_rollouts(job.pk, "timing@h") == "done"
    assert len(looks) == 20  # it waited for the other part, looking 20 times
    progress_writes = [
        q["sql"] for q in queries.captured_queries
        if q["sql"].startswith('UPDATE "workers_scoringjob"') and "progress_done" in q["sql"]
    ]  # fmt: skip
    # claimed, 0, 1 and 2 parts done, the result: 6 writes however long the wait (a write
    # at every look made it 25)
    assert len(progress_writes) <= 6, len(progress_writes)


@pytest.mark.django_db(transaction=True)
def test_parts_the_broker_does_not_take_are_scored_by_the_coordinator(built, alice, monkeypatch):
    """The broker cut while the coordinator offers its parts: the offer fails, the job does
    not; every group is scored here."""
    from kombu.exceptions import OperationalError

    def cut(task, args, queue, **options):
        raise OperationalError("Error 111 connecting to the broker. Connection refused.")

    job = _job(alice, [[FAST], [WRONG], [FAST]])
    monkeypatch.setattr("foundation.sending.send", cut)
    assert coordinator.do_score_rollouts(job.pk, "w@h") == "done"
    job.refresh_from_db()
    assert [group[0]["verdict"] for group in job.result["groups"]] == ["OK", "WRONG_ANSWER", "OK"]
