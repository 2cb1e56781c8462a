"""Training runs through the API (issue 35, item 1): one started as the Training page's form
starts it, each refused field named; its status with the progress the run page shows; stopped
as the page's button stops it; and a stopped run resumed, its real task continuing from its
checkpoint. Another team's run is 404."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client

from codeopt_site.celery import app
from runs.models import Run
from scoring.services import external_training
from tests.conftest import token_client
from tests.support.training_runs import put_in_warm_start
from tests.training.test_training_runs import SMALL, start_run, steps_of
from training import tasks  # noqa: F401  registers training.train with `app`
from training.config import TrainConfig
from training.models import RolloutSample, TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)

CONFIG = {**SMALL, "model": "tiny"}


def run_sent_tasks(enqueued: list, already: int = 0) -> list:
    """Run the tasks sent since the first `already`, in this process, as a worker runs them
    (the real task, its own database writes): their results."""
    return [app.tasks[task].apply(args=args).get() for task, args, _ in enqueued[already:]]


def page_progress_line(user, run_id: int) -> str:
    """The text of the run page's progress line (its progress section, as the page polls it)."""
    browser = Client()
    browser.force_login(user)
    page = browser.get(f"/runs/{run_id}/progress/").content.decode()
    line = re.search(r'<p id="training-progress"[^>]*>(.*?)</p>', page, re.S)[1]
    return html.unescape(re.sub(r"<[^>]+>", "", line).split(":", 1)[1]).strip()


def test_a_run_started_through_the_api_is_queued_as_the_forms_and_hidden_from_others(
    built, alice, bob, enqueued
):
    api = token_client(alice)
    answer = api.post("/api/training/", {"config": CONFIG, "name": " api "}, format="json")
    assert answer.status_code == 201, answer.json()
    started = answer.json()
    run = Run.objects.get()
    assert (started["id"], started["name"], started["team"], started["status"]) == (
        run.pk,
        "api",
        "red",
        "queued",
    )
    assert (started["step"], started["steps"], started["checkpoints"]) == (0, 2, [])
    as_form_stores = json.loads(json.dumps(TrainConfig.from_dict(CONFIG).as_dict()))
    assert started["config"] == as_form_stores == run.training.config
    assert started["run_url"].endswith(f"/api/runs/{run.pk}/")
    assert api.get(started["run_url"]).json()["id"] == run.pk
    assert enqueued == [("training.train", [run.pk], None)]  # routed as do_start_training
    # the name left out: the form's default
    second = api.post("/api/training/", {"config": CONFIG}, format="json").json()
    assert second["name"] == "grpo-binary-top50"
    assert [r["id"] for r in api.get("/api/training/").json()["results"]] == [
        second["id"],
        run.pk,
    ]

    for path in ("", f"{run.pk}/", f"{run.pk}/stop/", f"{run.pk}/resume/"):  # described
        assert api.options(f"/api/training/{path}").status_code == 200, path
    other = token_client(bob)
    assert other.get("/api/training/").json()["results"] == []
    for method, path in (("get", ""), ("post", "stop/"), ("post", "resume/")):
        assert getattr(other, method)(f"/api/training/{run.pk}/{path}").status_code == 404
    assert not TrainingRun.objects.filter(stop_requested=True).exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"config": {**CONFIG, "learning_rate": -1}}, "config.learning_rate"),
        ({"config": {**CONFIG, "learning_rate": 0}}, "config.learning_rate"),  # open interval
        ({"config": {**CONFIG, "reward_config": "nope"}}, "config.reward_config"),
        ({"config": {**CONFIG, "colour": "red"}}, "config.colour"),
        ({"config": {**CONFIG, "group_size": "8"}}, "config.group_size"),
        ({"config": {**CONFIG, "model": "/nowhere"}}, "config.model"),
        ({"config": {k: v for k, v in CONFIG.items() if k != "model"}}, "config.model"),
        ({"config": {**CONFIG, "problems": ["nope"]}}, "config.problems"),
        ({"config": [1]}, "config"),
        ({}, "config"),
        ({"config": CONFIG, "colour": "red"}, "colour"),
        ({"config": CONFIG, "team": "blue"}, "team"),  # not one of alice's teams
        ({"config": CONFIG, "name": "x" * 201}, "name"),
    ],
)
def test_a_refused_run_names_its_field_and_starts_nothing(built, alice, enqueued, body, field):
    answer = token_client(alice).post("/api/training/", body, format="json")
    assert answer.status_code == 400 and list(answer.json()) == [field], answer.json()
    assert not Run.objects.exists() and enqueued == []


def test_the_status_shows_the_progress_the_run_page_shows(built, alice, enqueued, monkeypatch):
    # the workers seen, fixed: the session's real worker (conftest `celery_worker_process`),
    # once a test in this process started it, beats into the test database, and a beat
    # between the two reads below changed "no worker … seen lately" into "1 worker takes"
    monkeypatch.setattr("foundation.queueing.workers_taking", lambda queue: 1)
    api = token_client(alice)
    queued = start_run(alice)
    training = start_run(alice, steps=300)
    put_in_warm_start(training, seconds_left=100)

    progress = api.get(f"/api/training/{training.pk}/").json()["progress"]
    assert progress["text"] == page_progress_line(alice, training.pk)
    assert progress["text"] == "warm start 120/300, about 2 min left"
    assert (progress["done"], progress["total"], progress["share"]) == (120, 300, 0.4)
    assert 90 < progress["remaining_s"] <= 100

    waiting = api.get(f"/api/training/{queued.pk}/").json()["progress"]["text"]
    assert waiting == page_progress_line(alice, queued.pk)
    # behind the run training now, named as the page names it
    assert waiting.startswith(f"queued on gpu behind training run #{training.pk} (running, warm")
    assert "; 1 worker takes gpu jobs; starts in about 2 min" in waiting
    listed = {r["id"]: r for r in api.get("/api/training/").json()["results"]}
    assert listed[queued.pk]["progress"]["text"] == waiting


def test_a_stopped_run_resumes_from_its_checkpoint_through_the_api(built, alice, enqueued):
    api = token_client(alice)
    run_id = api.post("/api/training/", {"config": {**CONFIG, "steps": 3}}, format="json").json()[
        "id"
    ]
    url = f"/api/training/{run_id}/"
    refused = api.post(url + "resume/")
    assert refused.status_code == 409 and "it is queued" in refused.json()["detail"]

    stopping = api.post(url + "stop/")
    assert stopping.status_code == 200 and stopping.json()["stop_requested"] is True
    assert run_sent_tasks(enqueued) == ["stopped"]  # after its first step, with a checkpoint
    stopped = api.get(url).json()
    assert (stopped["status"], stopped["step"], stopped["checkpoints"]) == ("stopped", 1, [0, 1])
    assert stopped["finished_at"] is not None and stopped["progress"]["text"] == ""
    again = api.post(url + "stop/")
    assert again.status_code == 409 and "already ended (stopped)" in again.json()["detail"]
    run = Run.objects.get(pk=run_id)
    (first_step,) = steps_of(run, "rewards/mean")
    first_samples = set(RolloutSample.objects.values_list("pk", flat=True))
    assert len(first_samples) == 2  # its one group

    resumed = api.post(url + "resume/")
    assert resumed.status_code == 202, resumed.json()
    body = resumed.json()
    assert (body["status"], body["stop_requested"], body["finished_at"]) == ("queued", False, None)
    assert body["stage"] == "queued to resume from step 1"
    assert enqueued[1:] == [("training.train", [run_id], None)]
    assert api.post(url + "resume/").status_code == 409  # queued already: sent once

    assert run_sent_tasks(enqueued, already=1) == ["finished"]
    finished = api.get(url).json()
    assert (finished["status"], finished["step"], finished["attempts"]) == ("finished", 3, 2)
    assert max(finished["checkpoints"]) == 3
    # the series goes on from the stopped step, and that step was not trained again: a
    # restart from scratch would have replaced its samples
    assert sorted(steps_of(run, "rewards/mean")) == [first_step, first_step + 1, first_step + 2]
    assert RolloutSample.objects.count() == 3 * 2
    assert first_samples <= set(RolloutSample.objects.values_list("pk", flat=True))
    done = api.post(url + "resume/")
    assert done.status_code == 409 and "it has finished" in done.json()["detail"]


def test_a_run_without_a_checkpoint_or_trained_elsewhere_is_not_resumed(
    built, alice, alice_run, enqueued
):
    api = token_client(alice)
    failed = start_run(alice)
    Run.objects.filter(pk=failed.pk).update(status="failed")
    answer = api.post(f"/api/training/{failed.pk}/resume/")
    assert answer.status_code == 409 and "no checkpoint" in answer.json()["detail"]

    external_training(alice_run.pk)  # a run trained elsewhere, scored here
    shown = api.get(f"/api/training/{alice_run.pk}/").json()
    assert (shown["external"], shown["steps"], shown["checkpoints"]) == (True, None, [])
    for action in ("stop", "resume"):
        answer = api.post(f"/api/training/{alice_run.pk}/{action}/")
        assert answer.status_code == 409 and "trained elsewhere" in answer.json()["detail"]
    assert enqueued == [] and not TrainingRun.objects.filter(stop_requested=True).exists()
