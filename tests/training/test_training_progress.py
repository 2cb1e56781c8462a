"""A training run reports each long stage with its count and an estimate (issue 17, item 4):
loading problems, the warm start and the optimizer steps, on its row for the run page and
the Training list, to the `train` command, with the time budget capping the estimate."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from foundation.progress import about, progress_text, remaining_s
from tests.support.training_runs import put_in_warm_start
from tests.training.test_training_runs import start_run
from training import services as training_services
from training.models import TrainingRun
from training.sink import StageProgress

pytestmark = pytest.mark.django_db(transaction=True)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_estimate_is_the_rate_so_far_and_the_time_budget_caps_it(built, alice):
    run = start_run(alice)
    clock, heard = Clock(), []
    progress = StageProgress(run.training.pk, clock=clock, on_progress=lambda *a: heard.append(a))
    progress.stage("warm start", total=300)
    clock.now += 30
    progress.advance(100)  # 100 steps in 30 s: 200 more take 60 s
    training = TrainingRun.objects.get(run=run)
    assert (training.stage, training.progress_done, training.progress_total) == (
        "warm start",
        100,
        300,
    )
    left = (training.stage_ends_at - timezone.now()).total_seconds()
    assert 55 < left <= 60
    assert training.progress_text == "warm start 100/300, about 1 min left"
    assert training.progress_share == pytest.approx(100 / 300)  # at the rate so far: the count
    clock.now += 0.2  # within WRITE_EVERY_S: heard, not written
    progress.advance(101)
    assert TrainingRun.objects.get(run=run).progress_done == 100 and heard[-1][0] == 101
    clock.now += 0.1
    progress.advance(300)  # the stage's last count is always written
    assert TrainingRun.objects.get(run=run).progress_done == 300
    # a resumed run: its rate counts from the checkpoint's step; 10 min of budget left
    progress.stage("training", total=10_000, done=2, deadline_s=600)
    clock.now += 60
    progress.advance(12)  # 10 steps a minute would take ~16 h: the budget ends it first
    assert progress.remaining == pytest.approx(540)
    training = TrainingRun.objects.get(run=run)
    assert training.progress_text == "training 12/10000, about 9 min left"
    # the bar follows the budget: 60 s of the 600 left at the stage's start, after the 2
    # steps done before it (0.12% by the count)
    assert training.progress_share == pytest.approx(2 / 10_000 + (1 - 2 / 10_000) * 60 / 600)
    clock.now += 540
    progress.advance(30)  # the budget spent: the bar is full whatever the count
    assert TrainingRun.objects.get(run=run).progress_share == pytest.approx(1.0)


def test_the_estimates_read_plainly():
    assert remaining_s(0, 10, 5) is None and remaining_s(5, 10, 5) == 5
    assert [about(s) for s in (0.4, 40, 170, 3600, 4800)] == [
        "about 1 s", "about 40 s", "about 3 min", "about 1 h", "about 1 h 20 min",
    ]  # fmt: skip
    assert progress_text("building the policy", 0, 0, None) == "building the policy"


def test_a_run_reports_every_stage_with_its_count(built, alice):
    run = start_run(alice, steps=2, warm_start_steps=20)
    heard = []
    status = training_services.do_run_training(
        run.pk, on_progress=lambda done, total, stage: heard.append((stage, done, total))
    )
    assert status == "finished"
    stages = list(dict.fromkeys(stage for stage, _, _ in heard))
    assert stages == ["loading problems", "building the policy", "warm start", "training"]
    assert ("loading problems", 1, 1) in heard
    assert [d for s, d, _ in heard if s == "warm start"] == list(range(0, 21))
    assert [(d, t) for s, d, t in heard if s == "training"] == [(0, 2), (1, 2), (2, 2)]
    training = TrainingRun.objects.get(run=run)
    assert (training.stage, training.stage_ends_at) == ("finished", None)


def test_the_run_page_and_the_training_list_show_the_stage_and_its_estimate(built, client, alice):
    run = start_run(alice, steps=300)
    put_in_warm_start(run, seconds_left=100)
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/progress/").content.decode()
    line = re.search(r'<p id="training-progress">.*?</p>', page, re.S)[0]
    assert '<progress max="1" value="0.4000" title="40% of the stage"></progress>' in line
    assert "warm start 120/300, about 2 min left" in line
    assert 'data-active="1"' in page
    assert "warm start 120/300, about 2 min left" in client.get(f"/runs/{run.pk}/").content.decode()
    assert "warm start 120/300, about 2 min left" in client.get("/training/").content.decode()


def test_a_time_budgeted_runs_page_says_its_steps_are_a_cap(built, client, alice):
    capped, budgeted = start_run(alice, steps=300), start_run(alice, steps=300, max_minutes=15)
    client.force_login(alice)
    pages = [client.get(f"/runs/{run.pk}/").content.decode() for run in (capped, budgeted)]
    controls = [re.search(r'id="training-controls">.*?</p>', p, re.S)[0] for p in pages]
    assert 'step <span id="training-step">0</span> of 300 ' in controls[0]
    assert 'step <span id="training-step">0</span> of at most 300 ' in controls[1]


def test_the_train_command_prints_the_stages(built, alice, tmp_path, capsys):
    from django.core.management import call_command

    config = tmp_path / "run.toml"
    config.write_text(
        'split = "all"\ngroup_size = 2\nprompts_per_step = 1\nsteps = 1\nmax_new_tokens = 16\n'
        'warm_start_steps = 3\nreward_config = "binary-top50"\nscoring = "local"\n'
    )
    call_command("train", str(config), "--user", "alice")
    printed = capsys.readouterr().err
    assert "[3/3] warm start" in printed and "[1/1] training" in printed
