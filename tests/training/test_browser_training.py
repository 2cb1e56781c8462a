"""A real browser on a trained run: the samples page draws the outcome heatmaps from the
stored rollouts, and the run page's stop button records the request."""

from __future__ import annotations

import pytest

from tests.conftest import log_in
from tests.training.test_training_runs import start_run
from training import services as training_services
from training.models import TrainingRun

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_samples_heatmaps_and_the_stop_button(
    asgi_server, open_page, page_errors, built, alice
):
    run = start_run(alice)
    training_services.do_run_training(run.pk)
    second = start_run(alice, steps=5)  # queued, not started: it can be stopped
    samples = list(run.training.samples.all())  # read before the browser's event loop
    page = open_page()
    log_in(page, asgi_server, f"/runs/{run.pk}/samples/")
    page.wait_for_selector("#chart-outcomes .heatmaplayer", timeout=15_000)
    traces = page.evaluate(
        "document.getElementById('chart-outcomes').data.map(t => [t.y, t.x, t.z])"
    )
    (problems, steps, correct), (_, _, fast) = traces
    assert problems == ["sum"] and steps == [1, 2]
    assert correct[0][1] == sum(s.correct for s in samples if s.step == 2) / 2
    assert all(f <= c for f, c in zip(fast[0], correct[0], strict=True))
    # 0% is drawn red, a step not sampled is the grey background: they no longer look alike
    zero, background = page.evaluate(
        "(() => { const g = document.getElementById('chart-outcomes');"
        " return [g.data[0].colorscale[0][1], g.layout.plot_bgcolor]; })()"
    )
    assert zero == "#d73027" and background == "#d9d9d9"

    page.goto(f"{asgi_server}/runs/{second.pk}/")
    page.click("text=Stop after this step")
    page.wait_for_selector("text=stop requested", timeout=10_000)
    assert page_errors == []
    assert TrainingRun.objects.get(run=second).stop_requested
