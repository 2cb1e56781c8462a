"""Training from the UI: the start form names a bad field and queues a good run, the run
page stops it, and the samples page shows scored rollouts with the outcome heatmap."""

from __future__ import annotations

import json
import re

import pytest

from runs.models import Run
from tests.training.test_training_runs import start_run
from training import services as training_services
from training.config import TrainConfig
from training.models import TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)

FORM = {
    # what the form sends: every field filled in (defaults where the test does not care)
    **{
        name: value
        for name, value in TrainConfig().form_values().items()
        if not isinstance(value, bool)
    },
    "model": "tiny",
    "reward_config": "binary-top50",
    "group_size": "2",
    "prompts_per_step": "1",
    "learning_rate": "1e-5",
    "token_budget": "32768",
    "max_staleness_steps": "30",
    "steps": "3",
    "seed": "0",
    "split": "all",
    "scoring": "local",
    "warm_start_steps": "10",
    "max_new_tokens": "32",
    "token_weighted_baseline": "on",
}


def test_the_form_names_a_bad_field_and_queues_a_good_run(
    built,
    client,
    alice,
    enqueued,
    django_capture_on_commit_callbacks,
):
    client.force_login(alice)
    assert client.get("/training/").status_code == 200
    bad = client.post("/training/", {**FORM, "group_size": "many"})
    assert (
        bad.status_code == 400
        and b"group_size: &#x27;many&#x27; is not a whole number" in bad.content
    )
    bad = client.post("/training/", {**FORM, "group_size": "1"})
    assert b"group_size: must be in [2, 1024]" in bad.content
    assert not Run.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/training/", {**FORM, "name": "from-the-form"})
    run = Run.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/runs/{run.pk}/"
    assert enqueued == [("training.train", [run.pk], None)]
    assert run.status == "queued" and run.name == "from-the-form"
    training = TrainingRun.objects.get(run=run)
    assert training.config["group_size"] == 2 and training.config["normalize_std"] is False
    assert training.config["token_weighted_baseline"] is True
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert "Stop after this step" in page and f"/runs/{run.pk}/samples/" in page


def test_the_run_page_stops_a_run_of_the_users_team_only(built, client, alice, bob):
    run = start_run(alice)
    client.force_login(bob)
    assert client.post(f"/runs/{run.pk}/stop/").status_code == 404
    assert not TrainingRun.objects.get(run=run).stop_requested
    client.force_login(alice)
    assert client.get(f"/runs/{run.pk}/stop/").status_code == 405
    assert client.post(f"/runs/{run.pk}/stop/").status_code == 302
    assert TrainingRun.objects.get(run=run).stop_requested
    assert "stop requested" in client.get(f"/runs/{run.pk}/").content.decode()


def test_the_samples_page_lists_rollouts_and_the_outcome_heatmap(built, client, alice):
    run = start_run(alice)
    training_services.do_run_training(run.pk)
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/samples/").content.decode()
    assert page.count('<tr data-verdict="') == 4  # 2 steps x 1 group x 2 samples
    data = json.loads(re.search(r'id="outcome-data"[^>]*>(.*?)</script>', page, re.S).group(1))
    assert data["problems"] == ["sum"] and data["steps"] == [1, 2]
    samples = run.training.samples.all()
    correct_at_1 = sum(s.correct for s in samples if s.step == 1) / 2
    assert data["correct"] == [[correct_at_1, sum(s.correct for s in samples if s.step == 2) / 2]]
    verdict = samples[0].verdict
    only = client.get(f"/runs/{run.pk}/samples/?verdict={verdict}&step=0").content.decode()
    assert only.count('<tr data-verdict="') == sum(
        s.verdict == verdict for s in samples if s.step == 0
    )
    bad = client.get(f"/runs/{run.pk}/samples/?step=two")
    assert bad.status_code == 400
    assert "step: &#x27;two&#x27; is not a step number" in bad.content.decode()
