"""A real browser on the Timing page (issue 35, item 6): the queue-wait chart of jobs that
waited under a millisecond reads in seconds from 0, not on a stretched scale of
sub-millisecond ticks around them (nor below 0: a wait is never negative)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.conftest import log_in
from tests.support.charts import assert_modebar_clears_title, number, tick_labels
from timing.models import TimingJob

pytestmark = pytest.mark.django_db(transaction=True)

CHART = "#chart-wait"
WAITS_S = (0.0003, 0.0008, 0.0012)


def test_the_queue_wait_axis_starts_at_zero_seconds_without_sub_millisecond_ticks(
    asgi_server, open_page, page_errors, alice, tmp_path
):
    queued = timezone.now() - timedelta(minutes=5)
    for index, wait in enumerate(WAITS_S):
        job = TimingJob.objects.create(
            owner=alice, package_dir="/packages/sum", source="print(1)", language="python",
            status=TimingJob.Status.DONE,
        )  # fmt: skip
        created = queued + timedelta(minutes=index)
        TimingJob.objects.filter(pk=job.pk).update(
            created_at=created,
            started_at=created + timedelta(seconds=wait),
            finished_at=created + timedelta(seconds=2),
        )
    page = open_page()
    log_in(page, asgi_server, "/timing/")
    page.wait_for_selector(f"{CHART} .scatterlayer .point", timeout=15_000)
    page.locator(CHART).scroll_into_view_if_needed()
    page.locator(CHART).screenshot(path=str(tmp_path / "queue-wait.png"))

    drawn = page.evaluate(f"document.querySelector('{CHART}').data[0].y")
    assert drawn == pytest.approx(sorted(WAITS_S, reverse=True), abs=1e-6)  # newest first
    low, high = page.evaluate(f"document.querySelector('{CHART}')._fullLayout.yaxis.range")
    assert low == 0 and high >= max(WAITS_S)
    ticks = [number(t) for t in tick_labels(page, CHART, "ytick")]
    assert ticks[0] == 0 and all(t >= 0 for t in ticks), ticks
    steps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert steps and min(steps) >= 0.001, ticks  # no tick a fraction of a millisecond apart
    assert "seconds" in page.evaluate(
        f"document.querySelector('{CHART}')._fullLayout.yaxis.title.text"
    )
    assert_modebar_clears_title(page, CHART)
    assert page_errors == []


def test_one_job_alone_is_drawn_on_minutes_not_sub_millisecond_time_ticks(
    asgi_server, open_page, page_errors, alice
):
    # one job: Plotly stretched the time axis around its instant ("22:52:39.5305")
    job = TimingJob.objects.create(
        owner=alice, package_dir="/packages/sum", source="print(1)", language="python",
        status=TimingJob.Status.DONE,
    )  # fmt: skip
    created = timezone.now() - timedelta(minutes=3)
    TimingJob.objects.filter(pk=job.pk).update(
        created_at=created,
        started_at=created + timedelta(seconds=0.6),
        finished_at=created + timedelta(seconds=2),
    )
    page = open_page()
    log_in(page, asgi_server, "/timing/")
    page.wait_for_selector(f"{CHART} .scatterlayer .point", timeout=15_000)
    labels = tick_labels(page, CHART, "xtick")
    assert labels and not any(re.search(r":\d\d\.\d", label) for label in labels), labels
    low, high = page.evaluate(f"document.querySelector('{CHART}')._fullLayout.xaxis.range")
    span_s = page.evaluate(f"(new Date('{high}') - new Date('{low}')) / 1000")
    assert 100 <= span_s <= 140, (low, high)
    assert page_errors == []
