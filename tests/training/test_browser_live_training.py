"""Journey 9a in a real browser: a run trained by the Celery worker grows live on its page.

The page is opened while the run is still queued; only then is the run handed to the real
worker. Everything after that reaches the page from the worker's process, without a reload:
the charts appear and grow, the header's status, step and stage move, and a zoom the user
made on a chart stays through the redraws.
"""

from __future__ import annotations

import pytest

from foundation.sending import send
from tests.conftest import log_in
from tests.training.test_training_runs import start_run

pytestmark = pytest.mark.django_db(transaction=True)

STEPS = 6
CHART = '.chart[data-key="rewards/mean"]'
WORKER_S = 240  # loading torch, warm start and STEPS steps on a busy 2-core machine


def text_is(selector: str, text: str) -> str:
    return f"document.querySelector({selector!r})?.textContent.trim() === {text!r}"


def test_a_run_trained_by_the_worker_grows_live_on_its_page(
    asgi_server, celery_worker_process, open_page, page_errors, built, alice
):
    run = start_run(alice, steps=STEPS)  # queued: not sent to the worker yet
    page = open_page()
    log_in(page, asgi_server, f"/runs/{run.pk}/")
    page.wait_for_function("document.body?.dataset.chartsReady === '1'", timeout=15_000)
    page.wait_for_function(text_is("#live-state", "live"), timeout=10_000)
    assert page.locator("#run-status").inner_text() == "queued"
    assert f"step 0 of {STEPS}" in page.locator("#training-controls").inner_text()
    assert page.locator(".chart").count() == 0
    page.evaluate("window.sameDocument = true")  # gone if the page reloads

    send("training.train", [run.pk], None)
    deadline_ms = WORKER_S * 1000
    page.wait_for_function(text_is("#run-status", "running"), timeout=deadline_ms)
    chart = page.locator(CHART)
    chart.wait_for(timeout=deadline_ms)  # the first step's points, from the worker

    page.wait_for_function(
        f"document.querySelector('{CHART}')?.dataset.points === '{STEPS}'", timeout=deadline_ms
    )
    page.wait_for_function(text_is("#run-status", "finished"), timeout=deadline_ms)
    page.wait_for_function(text_is("#training-step", str(STEPS)), timeout=5_000)
    assert page.locator("#training-stage").inner_text() == "(finished)"
    assert page.locator("#run-last-step").inner_text() == str(STEPS)  # one number (issue 35)
    assert page.locator(".chart").count() > 1  # every key of the trainer's, not one
    assert page.evaluate("window.sameDocument") is True
    assert page_errors == []
