"""Journey 9b in a real browser: from a trained run's page, evaluate its latest checkpoint
with the form's defaults (a split that has problems); a real worker on the `eval` queue runs
it while the page shows what it waits for and its progress, then its result: pτ with 95%
intervals and the small-sample warning, on the run's page."""

from __future__ import annotations

import re

import pytest

from evaluations.models import Evaluation
from tests.conftest import log_in
from tests.training.test_training_runs import start_run
from training.services import do_run_training

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_is_evaluated_from_its_page_and_its_result_lands_there(
    asgi_server, open_page, page_errors, celery_worker_process, built, alice
):
    run = start_run(alice, steps=2)
    assert do_run_training(run.pk) == "finished"  # checkpoints at steps 0 and 2
    page = open_page()
    log_in(page, asgi_server, f"/runs/{run.pk}/")
    form = page.locator("#evaluate-run")
    assert form.locator("select[name=step]").input_value() == "2"  # the latest
    # the built problem is in the train split: the default, not the empty test split
    assert form.locator("select[name=split]").input_value() == "train"
    assert form.locator("select[name=split] option[value=test]").is_disabled()
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"**/runs/{run.pk}/#run-evaluation-*")
    evaluation_id = int(page.url.rsplit("-", 1)[1])
    row = f"#run-evaluation-{evaluation_id}"
    # first it waits on its queue or already runs (a Redis-brokered worker takes it at
    # once, and its first stage, loading the model, has no count yet): the page says which
    page.wait_for_selector(
        f"{row}[data-status=queued] .waiting, {row}[data-status=running]", timeout=15_000
    )
    if page.locator(f"{row}[data-status=queued]").count():
        assert "queued on eval" in page.locator(f"{row} .waiting").inner_text()
    # the page follows it without a reload: its progress (count and estimate), then its result
    page.wait_for_selector(f"{row}[data-status=running] progress", timeout=120_000)
    assert re.search(r"\d+/\d+", page.locator(f"{row} td").nth(2).inner_text())
    page.wait_for_selector(f"{row}[data-status=done]", timeout=240_000)
    cells = page.locator(f"{row} td")
    assert cells.nth(3).inner_text() == "1"  # problems
    assert cells.nth(4).inner_text() == "20"  # the default n
    p100 = cells.nth(5).inner_text()
    assert p100.endswith(" [n/a — one problem]"), p100  # one problem: no interval
    assert "Only 1 problem" in page.locator(f"{row} .interval-warning").inner_text()
    assert page.locator("#run-progress").get_attribute("data-active") == "0"  # polling ends
    assert page_errors == []
    evaluation = Evaluation.objects.get(pk=evaluation_id)
    assert (evaluation.run_id, evaluation.step, evaluation.split, evaluation.n) == (
        run.pk,
        2,
        "train",
        20,
    )
    assert evaluation.status == "done" and evaluation.complexity is True
