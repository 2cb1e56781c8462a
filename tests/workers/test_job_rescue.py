"""Jobs of a dead worker are sent again by the live ones (issue 20, item 3): a timing worker
killed whole (`kill -9`) mid-job leaves its row `running` with no message coming back soon
(Redis hands it back after the visibility timeout, a day; the embedded broker never); the
other worker's heartbeat sweep sends it again within a minute, and it completes once. A
message for a job another live delivery runs does nothing; a training run whose trainer
stopped beating is sent again and resumes."""

from __future__ import annotations

import os
import re
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from codeopt_site.celery import app
from execution.samples import FAST, SLOW
from foundation import sending
from foundation.liveness import WorkerHeartbeat, worker_dead_after
from foundation.tenancy import Team
from runs.models import Run, RunStatus
from scripts.readiness import celery_worker_argv
from tests.conftest import Process, subprocess_env, wait_until
from tests.support.timing_jobs import submit_timing_job
from timing.models import TimingJob
from training.models import TrainingRun
from workers.process import rescue

RESCUED_TASKS = {
    "evaluations.evaluate": "evaluations.Evaluation",
    "judges.judge": "judges.JudgeBatch",
    "problems.run_dataset_build": "problems.DatasetBuild",
    "rewards.run_simulation": "rewards.Simulation",
    "timing.run_timing_job": "workers.TimingJob",
    "scoring.score_rollouts": "workers.ScoringJob",
}


def submit(owner, package, **changes) -> TimingJob:
    # the fast program: these jobs are here to be lost and sent again, not to be timed
    return submit_timing_job(owner, package, **{"source": FAST, **changes})


def beating(hostname: str, seen_s_ago: float, booted_s_ago: float = 3600) -> None:
    now = timezone.now()
    WorkerHeartbeat.objects.create(
        hostname=hostname,
        queues="timing",
        last_seen=now - timedelta(seconds=seen_s_ago),
        booted_at=now - timedelta(seconds=booted_s_ago),
    )


def running_on(
    job: TimingJob, worker: str, started_s_ago: float, delivery: str = "d-1", queue: str = ""
):
    started = timezone.now() - timedelta(seconds=started_s_ago)
    TimingJob.objects.filter(pk=job.pk).update(
        status="running",
        worker=worker,
        delivery=delivery,
        delivery_queue=queue,
        started_at=started,
        attempts=1,
    )


def test_every_job_task_names_its_row_so_that_it_can_be_rescued():
    found = {name: f"{m._meta.app_label}.{m.__name__}" for m, name in rescue._job_tasks(app)}
    assert found == RESCUED_TASKS


# Not transactional: the rows stay inside this test's transaction, where no real worker's
# sweep (the session's Celery worker) can see them.
@pytest.mark.django_db
def test_the_jobs_of_a_worker_that_stopped_beating_are_sent_again_once(
    alice, sum_package, enqueued
):
    beating("dead@h", seen_s_ago=60)
    beating("alive@h", seen_s_ago=1)
    beating("restarted@h", seen_s_ago=1, booted_s_ago=10)
    made = {name: submit(alice, sum_package) for name in ("dead", "alive", "restart", "foreground")}
    made["just started"] = submit(alice, sum_package)
    running_on(made["dead"], "dead@h", 90)
    running_on(made["alive"], "alive@h", 90)
    running_on(made["restart"], "restarted@h", 90, queue="timing-east")
    running_on(made["foreground"], "cli", 90)  # `manage.py evaluate` runs one in the foreground
    running_on(made["just started"], "dead@h", 5)
    enqueued.clear()

    sent = rescue.sweep(app, "sweeper@h")

    again = {"dead", "restart"}
    assert sorted(args[0] for _, args, _ in enqueued) == sorted(str(made[n].pk) for n in again)
    assert {task for task, _, _ in enqueued} == {"timing.run_timing_job"} and len(sent) == 2
    # each back to the queue its delivery came from (none recorded: the task's route)
    queues = {args[0]: queue for _, args, queue in enqueued}
    assert queues[str(made["restart"].pk)] == "timing-east"
    assert queues[str(made["dead"].pk)] is None
    rows = {name: TimingJob.objects.get(pk=job.pk) for name, job in made.items()}
    for name in again:
        assert (rows[name].status, rows[name].worker, rows[name].delivery) == ("queued", "", "")
    assert re.fullmatch(r"sent again: worker dead@h stopped beating 6\d s ago", rows["dead"].stage)
    assert rows["restart"].stage == "sent again: worker restarted@h restarted after the job started"
    for name in ("alive", "just started", "foreground"):
        assert rows[name].status == "running" and rows[name].delivery == "d-1"
    assert rescue.sweep(app, "another@h") == [] and len(enqueued) == 2  # taken back once


@pytest.mark.django_db
def test_a_message_for_a_job_that_another_live_delivery_runs_does_nothing(
    alice, sum_package, enqueued
):
    task = app.tasks["timing.run_timing_job"]
    beating("alive@h", seen_s_ago=1)
    job = submit(alice, sum_package)
    running_on(job, "alive@h", 5, delivery="d-1")
    # the broker hands back the first message of a job that was sent again: skipped
    assert task.apply(args=[str(job.pk)], task_id="d-0").get() == "skipped"
    row = TimingJob.objects.get(pk=job.pk)
    assert (row.status, row.worker, row.delivery, row.attempts) == ("running", "alive@h", "d-1", 1)
    # the same delivery again (its worker process died; the message came back): starts over
    assert task.apply(args=[str(job.pk)], task_id="d-1").get() == "done"
    row = TimingJob.objects.get(pk=job.pk)
    assert (row.status, row.delivery, row.attempts) == ("done", "d-1", 2)
    # another delivery of a job whose worker stopped beating: it is that worker's no more
    job = submit(alice, sum_package)
    running_on(job, "alive@h", 5, delivery="d-1")
    WorkerHeartbeat.objects.filter(hostname="alive@h").update(
        last_seen=timezone.now() - worker_dead_after() - timedelta(seconds=1)
    )
    assert task.apply(args=[str(job.pk)], task_id="d-2").get() == "done"
    assert TimingJob.objects.get(pk=job.pk).delivery == "d-2"


@pytest.mark.django_db
def test_a_training_run_whose_trainer_stopped_beating_is_sent_again(alice, enqueued):
    now = timezone.now()
    stale = now - timedelta(seconds=120)
    team = Team.objects.get(name="red")
    runs = {}
    for name, status, beaten in (
        ("dead", RunStatus.RUNNING, stale),
        ("training", RunStatus.RUNNING, now),
        ("not started", RunStatus.QUEUED, stale),
    ):
        run = Run.objects.create(name=name, owner=alice, team=team, status=status)
        TrainingRun.objects.create(
            run=run, config={}, checkpoint_dir="/nowhere", lease=f"{name}:1", heartbeat_at=beaten
        )
        runs[name] = run
    enqueued.clear()

    sent = rescue.sweep(app)

    assert enqueued == [("training.train", [runs["dead"].pk], None)] and len(sent) == 1
    dead = TrainingRun.objects.get(run=runs["dead"])
    assert (dead.lease, dead.heartbeat_at) == ("", None)
    assert re.fullmatch(r"sent again: its trainer dead:1 stopped beating 12\d s ago", dead.stage)
    assert TrainingRun.objects.get(run=runs["training"]).lease == "training:1"
    assert TrainingRun.objects.get(run=runs["not started"]).lease == "not started:1"
    assert rescue.sweep(app) == []


DEAD_AFTER_S = 6
"""The test's workers count a worker silent this long as dead (CODEOPT_WORKER_DEAD_AFTER_S;
30 s by default): the rescue is the same, sooner."""


def _timing_worker(name: str, queue: str, log) -> Process:
    argv = celery_worker_argv("--pool", "threads", "--concurrency", "1", "-Q", queue)
    argv += ["-n", f"{name}@%h"]
    return Process(argv, subprocess_env(CODEOPT_WORKER_DEAD_AFTER_S=str(DEAD_AFTER_S)), log)


def _started(worker: Process) -> None:
    wait_until(lambda: "ready." in worker.output() or not worker.alive(), 90, "a worker to start")
    assert worker.alive(), worker.output()


@pytest.mark.django_db(transaction=True)
def test_a_timing_job_of_a_worker_killed_whole_completes_once_on_another(
    alice, sum_package, tmp_path, monkeypatch
):
    # a queue of the test's own: the session's Celery worker (tests/conftest) takes `timing`
    tag = f"rescue{os.getpid()}"
    queue = f"{tag}-timing"
    send = sending.send
    monkeypatch.setattr(sending, "send", lambda task, args, _: send(task, args, queue))
    first = _timing_worker(f"{tag}-a", queue, tmp_path / "a.log")
    second = None
    try:
        _started(first)
        # SLOW, two repeats: a few seconds of work, still running when the worker is killed
        job = submit(alice, sum_package, source=SLOW, repeats=2)
        wait_until(
            lambda: TimingJob.objects.get(pk=job.pk).status == "running" or not first.alive(),
            120,
            "the first worker to start the job",
        )
        os.killpg(first.proc.pid, signal.SIGKILL)  # the whole worker, as a lost host
        first.proc.wait()
        killed_at = time.monotonic()
        assert TimingJob.objects.get(pk=job.pk).status == "running"  # nothing came back
        second = _timing_worker(f"{tag}-b", queue, tmp_path / "b.log")
        _started(second)
        wait_until(
            lambda: TimingJob.objects.get(pk=job.pk).status in ("done", "failed"),
            240,
            "the job to be sent again and finish",
        )
        took_s = time.monotonic() - killed_at
        row = TimingJob.objects.get(pk=job.pk)
        assert row.status == "done", (row.error, second.output())
        assert row.attempts == 2 and row.worker.startswith(f"{tag}-b@")
        assert row.result["verdict"] == "OK" and row.result["speed_percentile"] is not None
        # no message came back (the broker's visibility timeout is a day): the sweep sent it,
        # once the first worker's heartbeat was the workers' DEAD_AFTER_S old
        assert DEAD_AFTER_S < took_s < 120, f"{took_s:.0f} s to the result"
        assert row.delivery_queue == queue  # sent again where it was sent first
        # the sweeping worker says so (the session's worker, sweeping too, may be the one)
        said = [x for x in second.output().splitlines() if f"[{job.pk}]: worker {tag}-a@" in x]
        assert len(said) <= 1 and all(f"rescued by {tag}-b@" in x for x in said)
    finally:
        first.stop()
        if second is not None:
            second.stop()


@pytest.mark.django_db
def test_the_timing_page_shows_a_job_of_a_silent_worker_as_lost_not_running(
    client, alice, sum_package, enqueued
):
    beating("dead@h", seen_s_ago=45)
    beating("alive@h", seen_s_ago=1)
    lost, fine = submit(alice, sum_package), submit(alice, sum_package)
    running_on(lost, "dead@h", 90)
    running_on(fine, "alive@h", 90)
    client.force_login(alice)
    rows = {row["id"]: row for row in client.get("/timing/data.json").json()["jobs"]}
    assert rows[str(lost.pk)]["status"] == "lost"
    # 45 s when the beat was written; a slow host takes a few seconds to get here
    assert re.fullmatch(
        r"worker dead@h stopped beating (4[5-9]|5\d) s ago: a live worker sends it again",
        rows[str(lost.pk)]["error"],
    )
    assert (rows[str(fine.pk)]["status"], rows[str(fine.pk)]["error"]) == ("running", "")


@pytest.mark.django_db
def test_every_page_shows_a_job_of_a_silent_worker_as_lost(client, alice):
    """The Dataset, Rewards, Evaluations and Judges pages' tables (the JSON they poll), as
    the Timing page: a running job of a worker gone silent is "lost", with why."""
    from evaluations.models import Evaluation
    from judges.models import JudgeBatch
    from problems.models import DatasetBuild
    from rewards.models import Simulation

    team = Team.objects.get(name="red")
    beating("dead@h", seen_s_ago=50)
    beating("alive@h", seen_s_ago=1)
    evaluation = Evaluation.objects.create(owner=alice, team=team, name="e", source="model")
    made = {
        "/dataset/builds.json": ("builds", DatasetBuild.objects.create),
        "/rewards/simulations.json": ("simulations", Simulation.objects.create),
        "/evaluations/data.json": (
            "evaluations",
            lambda: Evaluation.objects.create(owner=alice, team=team, name="x", source="model"),
        ),
        "/judges/data.json": (
            "batches",
            lambda: JudgeBatch.objects.create(
                owner=alice, team=team, name="j", evaluation=evaluation
            ),
        ),
    }
    client.force_login(alice)
    started = timezone.now() - timedelta(seconds=90)
    for url, (key, create) in made.items():
        lost, fine = create(), create()
        for job, worker in ((lost, "dead@h"), (fine, "alive@h")):
            type(job).objects.filter(pk=job.pk).update(
                status="running", worker=worker, started_at=started
            )
        rows = client.get(url).json()[key]
        ids = {row.get("id", row.get("evaluation")): row for row in rows}
        assert ids[lost.pk]["status"] == "lost", url
        # 50 s when the beat was written; a slow host takes a few seconds to get here
        assert re.match(r"worker dead@h stopped beating 5\d s ago", ids[lost.pk]["error"]), url
        assert (ids[fine.pk]["status"], ids[fine.pk]["error"]) == ("running", ""), url


@pytest.mark.django_db
def test_a_job_made_while_the_broker_is_unreachable_is_kept_and_sent_when_it_answers(
    built, alice_api, monkeypatch, settings, django_capture_on_commit_callbacks
):
    from kombu.exceptions import OperationalError as BrokerDown

    from scoring.models import ScoringJob

    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent: list[tuple[str, list]] = []
    down = {"now": True}

    def send_task(name, args=None, **options):
        if down["now"]:
            raise BrokerDown("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        sent.append((name, list(args)))

    monkeypatch.setattr(sending.app, "send_task", send_task)
    body = {
        "reward_config": "binary-top50",
        "groups": [{"problem": "sum", "programs": [FAST]}],
        "request_key": "k-1",
    }
    with django_capture_on_commit_callbacks(execute=True):
        answer = alice_api.post("/api/scoring/", body, format="json")
    assert answer.status_code == 202, answer.content  # not a 500 that loses the row
    job = ScoringJob.objects.get(pk=answer.json()["id"])
    assert job.status == "queued" and job.stage.startswith("not sent: the broker is unreachable")
    assert len(rescue.send_unsent(app)) == 1  # tried while still down: marked again
    job.refresh_from_db()
    assert job.stage.startswith("not sent") and sent == []
    down["now"] = False
    lines = rescue.sweep(app, "sweeper@h")
    assert sent == [("scoring.score_rollouts", [job.pk])]
    assert len(lines) == 1 and lines[0].startswith(f"scoring.score_rollouts[{job.pk}]: not sent")
    job.refresh_from_db()
    assert (job.status, job.stage) == ("queued", "sent once the broker answered again")
    assert rescue.sweep(app, "another@h") == [] and len(sent) == 1  # sent once
    with django_capture_on_commit_callbacks(execute=True):  # the client's retry: the same job
        again = alice_api.post("/api/scoring/", body, format="json")
    assert again.json()["id"] == job.pk and ScoringJob.objects.count() == 1 and len(sent) == 1


@pytest.mark.django_db
def test_a_resend_that_fails_inside_kombu_leaves_the_job_marked_not_lost(monkeypatch, settings):
    """Seen in the cluster's broker cut: the sweep took a job's "not sent" mark, and the
    publish then failed inside kombu (AttributeError on a pool whose connection the cut had
    closed), which sending.send did not count as a broker failure: the job stayed queued under
    "sent once the broker answered again", with no message anywhere, for ever."""
    from scoring.models import ScoringJob

    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent: list[tuple[str, list]] = []
    broken = {"now": True}
    resets: list[bool] = []

    def send_task(name, args=None, **options):
        if broken["now"]:
            raise AttributeError("'NoneType' object has no attribute 'client'")
        sent.append((name, list(args)))

    monkeypatch.setattr(sending.app, "send_task", send_task)
    monkeypatch.setattr(sending, "_reset_broker_pools", lambda: resets.append(True))
    job = ScoringJob.objects.create(request={"groups": []}, stage=f"{sending.UNSENT}: cut")

    assert len(rescue.send_unsent(app)) == 1
    job.refresh_from_db()
    assert job.stage.startswith("not sent: the broker is unreachable (AttributeError")
    assert resets == [True] and sent == []
    broken["now"] = False
    assert len(rescue.send_unsent(app)) == 1
    assert sent == [("scoring.score_rollouts", [job.pk])]
    with pytest.raises(AttributeError):  # a task without a job row to keep it: raised
        broken["now"] = True
        sending.send("workers.ping", [], None)
