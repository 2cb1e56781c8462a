"""A real browser on the Rewards page (issue 35, item 6): with the fourteen built-in
configurations simulated, every reward curve has a look of its own (Plotly's ten colours
came round again: two flagged configurations were both orange and dotted)."""

from __future__ import annotations

import pytest

from rewards import services
from rewards.models import RewardConfig
from tests.conftest import log_in
from tests.rewards.test_reward_simulation import spread
from tests.support.charts import assert_modebar_clears_title

pytestmark = pytest.mark.django_db(transaction=True)

CHART = "#chart-curves"


def test_each_of_fourteen_configurations_has_its_own_colour_and_dash(
    asgi_server, open_page, page_errors, alice, tmp_path
):
    for index in range(3):
        spread(f"p{index}", references=6 + index)
    services.do_load_configs()
    configs = [row.engine_config() for row in RewardConfig.objects.order_by("name")]
    assert len(configs) >= 14
    request = services.check_simulation_request(configs=configs, noise_cvs="0,0.05")
    services.do_run_simulation(services.do_create_simulation(**request, queue=False).pk)
    page = open_page()
    log_in(page, asgi_server, "/rewards/")
    page.wait_for_selector(f"{CHART} .scatterlayer", timeout=15_000)
    page.locator(CHART).scroll_into_view_if_needed()
    page.locator(CHART).screenshot(path=str(tmp_path / "curves.png"))

    drawn = page.evaluate(
        f"document.querySelector('{CHART}')._fullData"
        ".map((t) => [t.name, t.line.color, t.line.dash, t.marker.color])"
    )
    assert len(drawn) == len(configs)
    looks = [(color, dash) for _, color, dash, _ in drawn]
    assert len(set(looks)) == len(looks), sorted(looks)
    assert all(line == marker for _, line, _, marker in drawn)  # a marker in its line's colour
    flagged = [name for name, _, dash, _ in drawn if dash == "dot"]
    assert flagged and all("(" in name for name in flagged)  # dotted: flagged, and says why
    assert_modebar_clears_title(page, CHART)
    assert page_errors == []
