"""One source for each number (issue 35 item 5): a training run's steps are the same figure on
its page's header, its Training line, its checkpoints, the Training page and the runs list; a
run trained elsewhere shows the steps its trainer reported, not "starting" and "0 /"; the runs
list and its Demo panel follow what happens without a reload, and fit a 1,400 px window."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from rest_framework.authtoken.models import Token

from foundation.tenancy import Team
from runs import services as run_services
from runs.models import Run
from scoring.services import external_training
from tests.conftest import log_in
from tests.runs.test_browser_live_chart import post
from tests.training.test_training_runs import start_run
from training import services as training_services
from training.models import TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)


def text_of(html: str, element_id: str) -> str:
    found = re.search(rf'<(\w+)[^>]*id="{element_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, element_id
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.group(2))).strip()


def training_row(html: str, run: Run) -> str:
    row = re.search(rf'<tr data-run="{run.pk}" data-status="[a-z]+">.*?</tr>', html, re.S)
    assert row, html
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row.group(0)))


def set_status(server: str, token: str, run: Run, status: str) -> None:
    """Through the API, as a trainer does (the test's thread holds Playwright's event loop,
    where a service notifying the channel layer cannot run)."""
    request = urllib.request.Request(
        f"{server}/api/runs/{run.pk}/",
        data=json.dumps({"status": status}).encode(),
        method="PATCH",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_a_finished_runs_steps_are_one_number_on_every_page(built, alice, client):
    # before: "Last step 1" in the header, "Training: step 2 of 2", checkpoint "step 2
    # (latest)": metrics were logged at the step's index, the rest at the steps done
    run = start_run(alice, steps=2)
    assert training_services.do_run_training(run.pk) == "finished"
    run.refresh_from_db()
    training = TrainingRun.objects.get(run=run)
    assert run.last_step == training.version == training.steps_done == 2
    assert max(training_services.checkpoint_steps(training)) == 2

    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert text_of(page, "run-last-step") == "2"
    assert text_of(page, "training-step") == "2"
    assert re.search(r'<option value="2">step 2 \(latest\)</option>', page)
    assert "2 / 2" in training_row(client.get("/training/").content.decode(), run)
    listed = client.get("/").content.decode()
    assert re.search(rf'data-run="{run.pk}".*?data-cell="last_step" data-sort="2">2<', listed, re.S)


def test_a_run_trained_elsewhere_shows_the_steps_its_trainer_reported(alice, alice_api, client):
    # before: "Training now: starting" on the run page at step 1, "0 /" on the Training page
    run = run_services.do_create_run(
        owner=alice,
        team=Team.objects.get(name="red"),
        name="trl-run",
        config=json.dumps({"max_steps": 10, "learning_rate": 1e-6}),
    )
    external_training(run.pk)  # as its first scored step makes it
    answer = alice_api.post(
        f"/api/runs/{run.pk}/metrics/",
        {"points": [{"step": 1, "key": "trl/loss", "value": 0.5}]},
        format="json",
    )
    assert answer.status_code == 200
    run_services.do_set_run_status(run, "running")

    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    progress = text_of(page, "training-progress")
    assert "starting" not in progress
    assert "step 1 of 10, reported by its trainer" in progress
    row = training_row(client.get("/training/").content.decode(), run)
    assert "1 / 10" in row and "0 /" not in row
    status = alice_api.get(f"/api/training/{run.pk}/")
    if status.status_code == 200:  # the training API reads the same figure
        assert status.json()["progress"]["steps_done"] == 1


def test_the_run_list_and_its_demo_panel_follow_the_runs_live(
    asgi_server, open_page, page_errors, alice, settings
):
    team = Team.objects.get(name="red")
    config = {f"option_{i}": f"a long configuration value number {i}" for i in range(40)}
    running = run_services.do_create_run(
        owner=alice, team=team, name="live", config=json.dumps(config)
    )
    run_services.do_set_run_status(running, "running")
    queued = run_services.do_create_run(owner=alice, team=team, name="demo-paper")
    token = Token.objects.create(user=alice).key
    post(asgi_server, token, running.pk, [{"step": 1, "key": "rewards/mean", "value": 0.25}])
    (settings.VAR_DIR / "demo-status.json").write_text(
        json.dumps(
            [
                {
                    "stage": "demo-paper",
                    "status": "queued",
                    "detail": "",
                    "url": "",
                    "row": f"runs.Run:{queued.pk}",
                },
            ]
        )  # fmt: skip
    )

    page = open_page()
    log_in(page, asgi_server, "/")
    cell = f'#run-table tr[data-run="{running.pk}"] [data-cell="last_step"]'
    assert page.inner_text(cell) == "1"
    # the list fits the window: a wide config scrolls inside its table, the page does not
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400

    post(asgi_server, token, running.pk, [{"step": 7, "key": "rewards/mean", "value": 0.75}])
    page.wait_for_function(
        "(sel) => document.querySelector(sel).textContent === '7'", arg=cell, timeout=15_000
    )
    metric = page.locator(f'#run-table tr[data-run="{running.pk}"] [data-cell="metric"]').first
    assert metric.inner_text() == "0.75"

    set_status(asgi_server, token, queued, "finished")
    page.wait_for_function(
        """() => document.querySelector('#demo-status li[data-stage="demo-paper"]')
            ?.dataset.status === 'finished'""",
        timeout=15_000,
    )
    set_status(asgi_server, token, running, "finished")
    page.wait_for_function(
        f"""() => document.querySelector('#run-table tr[data-run="{running.pk}"]')
            .dataset.status === 'finished'""",
        timeout=15_000,
    )
    assert page.inner_text(f'#run-table tr[data-run="{running.pk}"] .status') == "finished"
    assert page_errors == []


def test_the_live_cells_of_another_teams_run_are_not_answered(alice, bob, client):
    theirs = run_services.do_create_run(owner=bob, team=Team.objects.get(name="blue"), name="b")
    mine = run_services.do_create_run(owner=alice, team=Team.objects.get(name="red"), name="a")
    client.force_login(alice)
    answer = client.get(f"/runs/live.json?ids={theirs.pk},{mine.pk}").json()
    assert [row["id"] for row in answer["runs"]] == [mine.pk]
    refused = client.get("/runs/live.json?ids=x")
    assert refused.status_code == 400 and "ids" in refused.json()


def test_the_training_page_follows_its_runs_live(asgi_server, open_page, page_errors, alice):
    run = run_services.do_create_run(
        owner=alice,
        team=Team.objects.get(name="red"),
        name="trl-live",
        config=json.dumps({"max_steps": 10}),
    )
    external_training(run.pk)
    run_services.do_set_run_status(run, "running")
    token = Token.objects.create(user=alice).key
    post(asgi_server, token, run.pk, [{"step": 1, "key": "trl/loss", "value": 0.5}])

    page = open_page()
    log_in(page, asgi_server, "/training/")
    row = f'#training-runs tr[data-run="{run.pk}"]'
    assert page.inner_text(f'{row} [data-cell="steps"]') == "1 / 10"
    post(asgi_server, token, run.pk, [{"step": 4, "key": "trl/loss", "value": 0.4}])
    page.wait_for_function(
        "(sel) => document.querySelector(sel).textContent === '4 / 10'",
        arg=f'{row} [data-cell="steps"]',
        timeout=15_000,
    )
    assert page.inner_text(f'{row} [data-cell="stage"]') == "step 4 of 10, reported by its trainer"
    set_status(asgi_server, token, run, "finished")
    page.wait_for_function(
        "(sel) => document.querySelector(sel).dataset.status === 'finished'",
        arg=row,
        timeout=15_000,
    )
    assert page_errors == []
