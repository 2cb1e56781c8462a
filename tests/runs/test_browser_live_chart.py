"""A real browser: log in, open a run page, post points through the API, see the chart grow."""

from __future__ import annotations

import json
import urllib.request

import pytest
from rest_framework.authtoken.models import Token

from tests.conftest import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def post(server: str, token: str, run_id: int, points: list[dict]) -> None:
    request = urllib.request.Request(
        f"{server}/api/runs/{run_id}/metrics/",
        data=json.dumps({"points": points}).encode(),
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_the_run_page_chart_grows_live_as_points_arrive(
    asgi_server, open_page, page_errors, alice, alice_run
):
    token = Token.objects.create(user=alice).key
    post(
        asgi_server,
        token,
        alice_run.pk,
        [{"step": s, "key": "rewards/mean", "value": s / 10} for s in range(5)],
    )

    page = open_page()
    log_in(page, asgi_server, f"/runs/{alice_run.pk}/")
    chart = page.locator('.chart[data-key="rewards/mean"]')
    chart.wait_for(timeout=15_000)
    page.wait_for_function(
        "document.querySelector('#live-state')?.textContent === 'live'", timeout=10_000
    )
    assert chart.get_attribute("data-points") == "5"
    assert page.locator(".chart[data-key='rewards/mean'] .main-svg").count() >= 1
    assert "rewards" in page.locator("section[data-prefix=rewards] h2").inner_text()

    post(
        asgi_server,
        token,
        alice_run.pk,
        [
            {"step": 5, "key": "rewards/mean", "value": 0.9},
            {"step": 6, "key": "rewards/mean", "value": "NaN"},
            {"step": 6, "key": "losses/policy", "value": 0.1},
        ],
    )
    page.wait_for_function(
        "document.querySelector('.chart[data-key=\"rewards/mean\"]')?.dataset.points === '7'",
        timeout=1_000 + 4_000,  # live latency target is 1 s; headroom for a loaded CI box
    )
    # A new key gets its own chart in its own section, and the NaN is marked in the title.
    page.locator('.chart[data-key="losses/policy"]').wait_for(timeout=5_000)
    assert "1 non-finite" in chart.inner_text()
    # The controls redraw without losing points.
    page.check("#log-scale")
    page.select_option("#x-axis", "time")
    page.wait_for_timeout(300)
    assert chart.get_attribute("data-points") == "7"
    assert "wall time (UTC)" in chart.inner_text()
    assert page_errors == []


def test_a_hostile_metric_key_is_shown_as_text_not_run(
    asgi_server, open_page, page_errors, alice, alice_run
):
    token = Token.objects.create(user=alice).key
    hostile = "<img src=x onerror=window.pwned=1>/loss"
    post(asgi_server, token, alice_run.pk, [{"step": 1, "key": hostile, "value": 1.0}])
    page = open_page()
    log_in(page, asgi_server, f"/runs/{alice_run.pk}/")
    page.wait_for_function("document.body?.dataset.chartsReady === '1'", timeout=15_000)
    assert page.evaluate("window.pwned") is None
    assert page.locator("section h2").first.inner_text() == "<img src=x onerror=window.pwned=1>/"
    assert page_errors == []
