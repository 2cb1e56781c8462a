"""A run trained with a deliberately degraded timing service is marked as one (paper, s.5):
the Training form takes both settings and names a bad one, the run is tagged
degraded-timing, its page carries a warning banner with the settings, and every step logs
timing/degraded_cv."""

from __future__ import annotations

import re

import pytest

from runs.models import MetricPoint, Run
from tests.training.test_training_pages import FORM
from tests.training.test_training_runs import start_run
from training import services as training_services

pytestmark = pytest.mark.django_db(transaction=True)

DEGRADED = {"degraded_timing_cv": "0.3", "degraded_slowdown_rate": "0.1"}


def banner(page: str) -> str | None:
    found = re.search(r'<p class="banner-degraded" id="degraded-timing".*?</p>', page, re.S)
    return found[0] if found else None


def test_the_form_offers_both_settings_with_their_help_and_bounds(built, client, alice):
    client.force_login(alice)
    page = client.get("/training/").content.decode()
    fieldset = re.search(
        r'<fieldset class="experiments" id="train-experiments">.*?</fieldset>', page, re.S
    )[0]
    for name in DEGRADED:
        tag = re.search(rf'<input name="{name}"[^>]*>', fieldset)[0]
        assert 'min="0"' in tag and 'max="1"' in tag and 'value="0.0"' in tag and " required" in tag
    assert "CV of log-normal noise on every measured cost" in fieldset
    assert "CV of 0.20-0.45, docs/benchmarks.md" in fieldset  # the figure it mirrors
    assert "share of measured costs slowed x1.5-x3" in fieldset


@pytest.mark.parametrize(
    "change, message",
    [
        ({"degraded_timing_cv": "1.5"}, "degraded_timing_cv: must be in [0, 1], not 1.5"),
        ({"degraded_slowdown_rate": "-0.1"}, "degraded_slowdown_rate: must be in [0, 1], not -0.1"),
        (
            {"degraded_slowdown_rate": "often"},
            "degraded_slowdown_rate: &#x27;often&#x27; is not a number",
        ),
        ({"degraded_timing_cv": " "}, "degraded_timing_cv: required (the default is 0.0)"),
    ],
)
def test_the_form_names_a_bad_setting_and_starts_nothing(
    built, client, alice, enqueued, change, message
):
    client.force_login(alice)
    response = client.post("/training/", {**FORM, **DEGRADED, **change})
    assert response.status_code == 400
    assert f'<p class="error" id="train-error">{message}</p>' in response.content.decode()
    assert not Run.objects.exists() and enqueued == []


def test_a_degraded_run_is_tagged_and_its_page_warns_with_the_settings(built, client, alice):
    client.force_login(alice)
    assert client.post("/training/", {**FORM, **DEGRADED, "name": "noisy"}).status_code == 302
    assert client.post("/training/", {**FORM, "name": "clean"}).status_code == 302
    noisy, clean = Run.objects.get(name="noisy"), Run.objects.get(name="clean")
    assert noisy.tags == ["training", "degraded-timing"] and clean.tags == ["training"]
    assert noisy.training.config["degraded_timing_cv"] == 0.3
    assert noisy.training.config["degraded_slowdown_rate"] == 0.1
    page = client.get(f"/runs/{noisy.pk}/").content.decode()
    assert '<span class="badge-degraded">degraded timing</span>' in page
    text = " ".join(banner(page).split())
    assert "Timing degraded on purpose." in text
    assert (
        "log-normal noise of CV 30% on every measured cost, programs and references alike" in text
    )
    assert "10% of costs slowed x1.5-x3" in text
    assert "<code>degraded_timing_cv</code> 0.3, <code>degraded_slowdown_rate</code> 0.1" in text
    clean_page = client.get(f"/runs/{clean.pk}/").content.decode()
    assert banner(clean_page) is None and "badge-degraded" not in clean_page


def test_every_step_of_a_degraded_run_logs_its_degradation(built, alice):
    run = start_run(alice, degraded_timing_cv=0.25, degraded_slowdown_rate=0.2)
    assert training_services.do_run_training(run.pk) == "finished"
    logged = MetricPoint.objects.filter(series__run=run).order_by("step")
    cv = [(p.step, p.value) for p in logged.filter(series__key="timing/degraded_cv")]
    rate = [(p.step, p.value) for p in logged.filter(series__key="timing/degraded_slowdown_rate")]
    assert cv == [(1, 0.25), (2, 0.25)] and rate == [(1, 0.2), (2, 0.2)]
