"""A real browser on a run page (issue 35, item 6): smoothed on a log scale, an EMA through
values at or below 0 leaves those points out (a gap in its line) instead of falling to the
axis edge, and the note counts the data's values ≤ 0, not the EMA's again."""

from __future__ import annotations

import pytest

from runs import services
from tests.conftest import log_in
from tests.support.charts import assert_modebar_clears_title

pytestmark = pytest.mark.django_db(transaction=True)

VALUES = [0.5, 0.0, -0.4, -0.3, 0.2, 0.6, 1.0, 1.2]
CHART = '.chart[data-key="rewards/mean"]'


def trace(role: str) -> str:
    return f"document.querySelector('{CHART}').data.find((t) => t.meta.role === '{role}').y"


def test_an_ema_on_a_log_scale_leaves_out_its_points_at_or_below_zero(
    asgi_server, open_page, page_errors, alice_run, tmp_path
):
    points = [{"step": s, "key": "rewards/mean", "value": v} for s, v in enumerate(VALUES)]
    services.do_ingest_metrics(alice_run.pk, {"points": points})
    page = open_page()
    log_in(page, asgi_server, f"/runs/{alice_run.pk}/")
    page.wait_for_function("document.body?.dataset.chartsReady === '1'", timeout=15_000)
    page.fill("#smoothing", "0.6")
    page.check("#log-scale")
    page.wait_for_function(
        f"document.querySelector('{CHART}')?.dataset.scale === 'log'"
        f" && document.querySelector('{CHART}').data.some((t) => t.meta.role === 'ema')",
        timeout=5_000,
    )
    page.locator(CHART).screenshot(path=str(tmp_path / "log-ema.png"))

    smoothed = page.evaluate("(values) => codeoptCharts.ema(values, 0.6)", VALUES)
    assert sum(v <= 0 for v in smoothed) == 3  # the EMA dips below 0 at steps 2-4
    drawn = page.evaluate(trace("ema"))
    assert drawn == [v if v > 0 else None for v in smoothed]
    assert page.evaluate(trace("raw")) == [v if v > 0 else None for v in VALUES]
    assert "3 values ≤ 0 not drawn" in page.locator(CHART).inner_text()  # 0, -0.4, -0.3
    assert_modebar_clears_title(page, CHART, tmp_path / "log-ema-hovered.png")
    assert page_errors == []
