"""A real browser draws a run's charts as a W&B user expects: markers on a short series,
fractions on 0…1, the group kinds stacked, units from the one table, zoom and hidden traces
kept across live points, and a log scale that says what it cannot draw."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from tests.conftest import log_in
from tests.runs.test_browser_live_chart import post

pytestmark = pytest.mark.django_db(transaction=True)

KINDS = ("all_negative", "mixed", "all_positive")
# (all_negative, mixed, all_positive, all_correct_tied) per step: the first three sum to 1
GROUPS = [(0.5, 0.25, 0.25, 0.25), (0.4, 0.2, 0.4, 0.1), (0.3, 0.3, 0.4, 0.2)]


def group_points(step: int, shares) -> list[dict]:
    keys = [f"groups/{kind}" for kind in KINDS] + ["groups/all_correct_tied"]
    return [{"step": step, "key": k, "value": v} for k, v in zip(keys, shares, strict=True)]


def chart(key: str) -> str:
    return f"document.querySelector('.chart[data-key=\"{key}\"]')"


def test_a_run_page_draws_short_series_fractions_and_group_kinds_and_keeps_zoom_live(
    asgi_server, open_page, page_errors, alice, alice_run
):
    token = Token.objects.create(user=alice).key
    points = [{"step": s, "key": "rewards/mean", "value": (s - 2) / 10} for s in range(5)]
    points += [{"step": 0, "key": "eval/p100", "value": 0.0}]  # one point, on the edge
    points += [{"step": s, "key": "timing/scoring_latency_s", "value": 1.5 + s} for s in (0, 1)]
    for step, shares in enumerate(GROUPS):
        points += group_points(step, shares)
    post(asgi_server, token, alice_run.pk, points)

    page = open_page()
    log_in(page, asgi_server, f"/runs/{alice_run.pk}/")
    page.wait_for_function("document.body?.dataset.chartsReady === '1'", timeout=15_000)
    page.wait_for_function(
        "document.querySelector('#live-state')?.textContent === 'live'", timeout=10_000
    )

    # a short series has markers; a single point is visible
    assert page.evaluate(f"{chart('rewards/mean')}.data[0].mode") == "lines+markers"
    assert page.evaluate(f"{chart('eval/p100')}.data[0].mode") == "lines+markers"
    # a fraction is on 0…1 (one value 0 autoscales to −1…1), labelled with its unit
    assert page.evaluate(f"{chart('eval/p100')}._fullLayout.yaxis.range") == [0, 1]
    assert "p100 (fraction of samples)" in page.locator('.chart[data-key="eval/p100"]').inner_text()
    # steps are whole numbers: a short series is ticked 0, 1, 2, ... (Plotly's own 0.5s not)
    for key in ("rewards/mean", "timing/scoring_latency_s"):  # steps 0-4, and 0-1
        ticks = page.evaluate(
            f"[...{chart(key)}.querySelectorAll('.xtick text')].map((t) => t.textContent)"
        )
        assert ticks and all(t.lstrip("−-").isdigit() for t in ticks), (key, ticks)
    latency = page.locator('.chart[data-key="timing/scoring_latency_s"]').inner_text()
    assert "scoring_latency_s (seconds)" in latency and "percentile" not in latency

    # the group kinds: one stacked chart (summing to 1), the tied share a line over it
    assert page.locator('.chart[data-key="groups/all_negative"]').count() == 0
    kinds = page.evaluate(
        f"""{chart("groups/kinds")}._fullData.map((t) => ({{
            key: t.meta.key, stack: t.stackgroup || null, y: [...t.y], dash: t.line.dash}}))"""
    )
    stacked = [t for t in kinds if t["stack"]]
    assert [t["key"] for t in stacked] == [f"groups/{kind}" for kind in KINDS]
    assert len({t["stack"] for t in stacked}) == 1
    for i in range(len(GROUPS)):
        assert sum(t["y"][i] for t in stacked) == pytest.approx(1.0)
    (tied,) = [t for t in kinds if not t["stack"]]
    assert tied["key"] == "groups/all_correct_tied" and tied["dash"] == "dash"
    assert tied["y"] == [g[3] for g in GROUPS]
    assert page.evaluate(f"{chart('groups/kinds')}._fullLayout.yaxis.range") == [0, 1]

    # the user zooms one chart and hides a kind in another (a click on its legend entry)
    rewards = page.locator('.chart[data-key="rewards/mean"]')
    rewards.scroll_into_view_if_needed()
    box = rewards.locator(".nsewdrag").bounding_box()  # a drag along the step axis
    middle = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * 0.3, middle)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.6, middle, steps=5)
    page.mouse.up()
    zoomed = page.evaluate(f"{chart('rewards/mean')}.layout.xaxis.range")
    assert zoomed and 0 < zoomed[0] < zoomed[1] < 4
    legend = page.locator('.chart[data-key="groups/kinds"] .legend .traces')
    legend.filter(has_text="mixed").locator(".legendtoggle").click()
    hidden = f"{chart('groups/kinds')}._fullData.find((t) => t.meta.key === 'groups/mixed')"
    page.wait_for_function(f"{hidden}?.visible === 'legendonly'", timeout=5_000)

    post(
        asgi_server,
        token,
        alice_run.pk,
        [{"step": 5, "key": "rewards/mean", "value": 0.4}, *group_points(3, GROUPS[0])],
    )
    page.wait_for_function(f"{chart('rewards/mean')}?.dataset.points === '6'", timeout=5_000)
    page.wait_for_function(f"{chart('groups/kinds')}?.dataset.points === '16'", timeout=5_000)
    assert page.evaluate(f"{chart('rewards/mean')}._fullLayout.xaxis.range") == zoomed
    assert page.evaluate(f"{chart('rewards/mean')}.layout.xaxis.autorange") is False
    assert page.evaluate(f"{hidden}.visible") == "legendonly"
    assert page.evaluate(f"{chart('groups/kinds')}.data[0].x.length") == 4

    # a log scale draws what it can and says what it cannot, instead of an empty chart
    page.check("#log-scale")
    page.wait_for_function(f"{chart('eval/p100')}?.dataset.note !== ''", timeout=5_000)
    page.wait_for_function(f"{chart('rewards/mean')}?.dataset.scale === 'log'", timeout=5_000)
    assert "3 values ≤ 0 not drawn" in rewards.inner_text()  # -0.2, -0.1 and 0
    p100 = page.locator('.chart[data-key="eval/p100"]')
    assert p100.get_attribute("data-scale") == "linear"
    assert "no value above 0" in p100.inner_text()
    assert page_errors == []
