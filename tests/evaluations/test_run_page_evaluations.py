"""A run's evaluations on its page (issue 17, item 3): the Evaluate form defaults to a split
that has problems (and says when none has), a queued evaluation says what it waits for on
its queue, and the run page lists the run's evaluations with pτ, 95% intervals and a
warning when too few problems carry them."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from evaluations import metrics, reads, services
from evaluations.models import Evaluation
from execution.samples import FAST
from foundation.liveness import WorkerHeartbeat
from foundation.queueing import Queues
from foundation.tenancy import Team
from problems.loading import problems_per_split
from problems.models import DatasetBuild, Problem
from rewards.runtimes import loaded_problems
from runs.models import Run
from scoring.models import ScoringJob
from tests.evaluations.test_evaluations import evaluate_upload, lines
from tests.support.training_runs import put_in_warm_start
from tests.training.test_training_runs import start_run
from training.services import do_run_training

pytestmark = pytest.mark.django_db(transaction=True)


def move_sum_to(split: str) -> None:
    Problem.objects.filter(slug="sum").update(split=split)


def trained_run(user, **changes) -> Run:
    run = start_run(user, steps=2, **changes)
    assert do_run_training(run.pk) == "finished"
    return run


def split_select(page: str, form_id: str) -> str:
    form = re.search(rf'<form[^>]*id="{form_id}".*?</form>', page, re.S).group(0)
    return re.search(r'<select name="split">.*?</select>', form, re.S).group(0)


# -- the default split -----------------------------------------------------------------------


def test_without_a_split_an_evaluation_takes_one_that_has_problems(built, alice):
    # test (held out) when it has problems, else the first of train, all that has
    for sum_split, expected in (("train", "train"), ("test", "test"), ("unassigned", "all")):
        move_sum_to(sum_split)
        request = services.check_evaluation_request(alice, {"source": "model", "model": "tiny"})
        assert (request.split, request.problem_slugs) == (expected, ["sum"]), sum_split


def test_the_split_counts_are_the_problems_an_evaluation_would_score(built):
    for split in ("train", "test", "unassigned"):
        move_sum_to(split)
        counts = problems_per_split()
        assert counts == {s: len(loaded_problems("" if s == "all" else s)) for s in counts}
        assert counts["all"] == 1


def test_a_split_without_problems_is_refused_naming_those_that_have(built, alice):
    move_sum_to("train")
    with pytest.raises(ValueError) as error:
        services.check_evaluation_request(alice, {"source": "model", "split": "test"})
    assert str(error.value) == (
        "split: no test problem has stored reference runtimes (train has 1, all has 1): "
        "choose another split"
    )


def test_the_forms_default_to_a_split_with_problems_and_disable_the_empty_ones(
    built, client, alice
):
    move_sum_to("train")
    run = trained_run(alice)
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    select = split_select(page, "evaluate-run")
    assert '<option value="train" selected>train (1 problem)</option>' in select
    assert '<option value="test" disabled>test (no built problem)</option>' in select
    assert "The test split has no built problem yet: train is chosen instead" in page
    assert '<input type="hidden" name="back" value="run">' in page
    page = client.get("/evaluations/").content.decode()
    assert '<option value="train" selected>train (1 problem)</option>' in split_select(
        page, "evaluate-form"
    )


def test_with_nothing_built_the_form_says_so(client, alice):
    client.force_login(alice)
    page = client.get("/evaluations/").content.decode()
    assert "No split has a built problem yet: run a dataset build (Dataset page) first." in page
    with pytest.raises(ValueError, match="split: no problem of any split has stored reference"):
        services.check_evaluation_request(alice, {"source": "model"})


# -- what a queued evaluation waits for ------------------------------------------------------


def test_a_queued_evaluation_says_what_it_waits_for_on_its_queue(
    built, client, alice, bob, enqueued, monkeypatch
):
    move_sum_to("train")
    run = trained_run(alice)
    # another team's training queued first: counted, never named
    blue = Team.objects.get(name="blue")
    theirs = start_run(bob, steps=5)
    Run.objects.filter(pk=theirs.pk).update(team=blue)
    training = start_run(alice, steps=300)  # trains now, in its warm start
    put_in_warm_start(training, seconds_left=125)
    client.force_login(alice)
    response = client.post(
        "/evaluations/",
        {"source": "run", "run": run.pk, "back": "run", "n": "2", "complexity": "on"},
    )
    evaluation = Evaluation.objects.get()
    # from the run page, back to it; on the eval queue, where it generates
    assert response.url == f"/runs/{run.pk}/#run-evaluation-{evaluation.pk}"
    assert enqueued == [("evaluations.evaluate", [evaluation.pk], "eval")]
    assert evaluation.split == "train"  # the default: the one split with problems
    monkeypatch.setattr("foundation.queueing.workers_taking", lambda queue: 0)
    page = client.get(f"/runs/{run.pk}/progress/").content.decode()
    row = re.search(rf'<tr id="run-evaluation-{evaluation.pk}".*?</tr>', page, re.S).group(0)
    assert 'data-status="queued"' in row
    # its own lane (issue 35): neither training run, queued or training, is ahead of it
    assert "queued on eval" in row and "training run" not in row, row
    assert "no worker taking eval jobs has been seen lately" in row
    assert f"#{theirs.pk}" not in page
    assert 'data-active="1"' in page  # the page polls while it waits
    monkeypatch.undo()
    WorkerHeartbeat.objects.create(hostname="eval@test", queues="eval", last_seen=timezone.now())
    rows = client.get("/evaluations/data.json").json()["evaluations"]
    assert re.search(r"in line; \d+ workers? takes? eval jobs$", rows[0]["waiting"])


def test_an_upload_waits_on_the_timing_queue_behind_a_running_build(built, alice):
    build = DatasetBuild.objects.create(status="running", stage="size search")
    request = services.check_evaluation_request(
        alice,
        {"source": "completions", "split": "all"},
        ("up.jsonl", lines({"problem": "sum", "program": FAST})),
    )
    upload = services.do_create_evaluation(alice, Team.objects.get(name="red"), request, False)
    text = Queues(alice).waiting_text("timing", f"evaluation #{upload.pk}", upload.created_at)
    assert text.startswith(
        f"queued on timing behind dataset build #{build.pk} (running, size search): 2nd in line"
    )
    DatasetBuild.objects.filter(pk=build.pk).update(status="done")
    text = Queues(alice).waiting_text("timing", f"evaluation #{upload.pk}", upload.created_at)
    assert text.startswith("queued on timing: next in line")


def test_a_scoring_request_without_a_run_is_named_to_its_owner_only(built, alice, bob):
    """An outside trainer's scoring job with no run (no training row) waits on `timing` too:
    its owner sees it named, another user counts it."""
    request = ScoringJob.objects.create(owner=bob, request={"groups": []}, status="running")
    request = ScoringJob.objects.get(pk=request.pk)
    checked = services.check_evaluation_request(
        alice,
        {"source": "completions", "split": "all"},
        ("up.jsonl", lines({"problem": "sum", "program": FAST})),
    )
    upload = services.do_create_evaluation(alice, Team.objects.get(name="red"), checked, False)
    label = f"evaluation #{upload.pk}"
    mine, theirs = Queues(bob), Queues(alice)
    assert mine.ahead_of("timing", label, upload.created_at)[0].label == (
        f"scoring request #{request.pk}"
    )
    assert theirs.waiting_text("timing", label, upload.created_at).startswith(
        "queued on timing behind 1 job of other teams: 2nd in line"
    )


# -- the run's evaluations and the small-sample warning --------------------------------------


def test_the_run_page_lists_its_evaluations_with_intervals_and_a_small_sample_warning(
    built, client, alice
):
    run = trained_run(alice)
    request = services.check_evaluation_request(
        alice,
        {"source": "run", "run": run.pk, "n": 2, "complexity": False, "max_new_tokens": 48},
    )
    evaluation = services.do_create_evaluation(alice, run.team, request, queue=False)
    assert services.do_run_evaluation(evaluation.pk) == "done"
    evaluation.refresh_from_db()
    elsewhere = evaluate_upload(alice, lines({"problem": "sum", "program": FAST}))  # no run
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    section = re.search(r'<section id="run-progress".*?</section>', page, re.S).group(0)
    assert 'data-active="0"' in section  # nothing left to wait for: no polling
    assert section.count('<tr id="run-evaluation-') == 1  # this run's only
    assert f"run-evaluation-{elsewhere.pk}" not in section
    headers = re.findall(r"<th>(p[\d.]+) pass@1 \[95% CI\]</th>", section)
    assert headers == ["p100", "p50", "p30", "p10"]
    p100 = evaluation.results["p_tau"]["100"]
    assert evaluation.results["n_problems"] == 1 and p100["low"] is None is p100["high"]
    no_interval = '<small class="no-interval">[n/a — one problem]</small>'
    assert f"{p100['value']:.3f} {no_interval}" in section
    assert metrics.few_problems_warning(1) in section
    assert "Only 1 problem: there is no spread between problems to resample" in section
    # the same warning beside the comparison table and in the list the page polls
    compare = client.get(f"/evaluations/?compare={evaluation.pk}").content.decode()
    assert 'class="warning interval-warning">Only 1 problem' in compare
    listed = {
        r["evaluation"]: r for r in client.get("/evaluations/data.json").json()["evaluations"]
    }
    assert listed[evaluation.pk]["interval_warning"] == metrics.few_problems_warning(1)


def test_the_warning_names_how_little_a_few_problems_can_say():
    assert "at most 10 distinct values" in metrics.few_problems_warning(3)
    assert "at least 10 problems" in metrics.few_problems_warning(9)
    assert metrics.few_problems_warning(metrics.MIN_PROBLEMS_FOR_INTERVALS) == ""
    assert metrics.few_problems_warning(None) == ""


def test_a_queued_or_running_evaluation_is_not_warned_about_yet(built, alice):
    run = trained_run(alice)
    request = services.check_evaluation_request(alice, {"source": "run", "run": run.pk})
    services.do_create_evaluation(alice, run.team, request, queue=False)
    (row,) = reads.run_rows(alice, run)["rows"]
    assert row["status"] == "queued" and row["interval_warning"] == ""
    assert all(cell["value"] is None for cell in row["cells"])
