"""A real browser on the Rewards page after a simulation on stored runtimes: the heatmaps
and curves show the simulated numbers, the noise selector redraws the curves, and a
recommendation is made from the page."""

from __future__ import annotations

import pytest

from rewards import services
from rewards.models import RewardConfig
from tests.conftest import log_in
from tests.rewards.test_reward_simulation import spread

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_rewards_page_draws_the_simulation_and_records_a_recommendation(
    asgi_server, open_page, page_errors, alice, tmp_path
):
    for index in range(5):
        spread(f"p{index}", references=6 + index)
    services.do_load_configs()
    # a built-in configuration is staff's to recommend; this one is alice's team's
    RewardConfig.objects.filter(name="binary-top30").update(team=alice.teams.get())
    configs = [row.engine_config() for row in RewardConfig.objects.order_by("name")]
    request = services.check_simulation_request(configs=configs, noise_cvs="0,0.05,0.3")
    simulation = services.do_run_simulation(
        services.do_create_simulation(**request, queue=False).pk
    )
    results = {r["name"]: r for r in simulation.results}
    page = open_page()
    log_in(page, asgi_server, "/rewards/")

    page.wait_for_selector("#chart-heatmap .heatmaplayer", timeout=15_000)
    heatmaps = page.evaluate(
        "document.getElementById('chart-heatmap').data.map(t => [t.y, t.z, t.x])"
    )
    assert len(heatmaps) == 3  # monotonicity, signal density, all-negative rate
    names, density, levels = heatmaps[1]
    assert levels == ["CV 0", "CV 0.05", "CV 0.3"]
    row = names.index("control-bar100 ⚑")  # flagged configurations carry a mark
    assert density[row] == [0.0, 0.0, 0.0]
    top30 = names.index("binary-top30")
    assert heatmaps[2][1][top30] == [
        level["all_negative_rate"] for level in results["binary-top30"]["by_noise"]
    ]

    page.wait_for_selector("#chart-curves .scatterlayer", timeout=15_000)
    curve = "document.getElementById('chart-curves').data.find(t => t.name === 'binary-top30').y"
    assert page.evaluate(curve) == results["binary-top30"]["by_noise"][0]["curve"]
    page.select_option("#curve-noise", "2")
    assert page.evaluate(curve) == results["binary-top30"]["by_noise"][2]["curve"]
    axis = page.evaluate("document.getElementById('chart-curves').layout.xaxis.title.text")
    assert axis.startswith("reference quality")

    page.locator(f"#simulation-list tr[data-id='{simulation.pk}']").wait_for(timeout=10_000)
    top30_row = page.locator("tr[data-name='binary-top30']")
    assert top30_row.get_attribute("data-verdict") == "worth"
    top30_row.locator("button", has_text="Recommend").click()
    page.locator("tr[data-name='binary-top30'] .recommended").wait_for(timeout=10_000)
    page.screenshot(path=str(tmp_path / "rewards.png"), full_page=True)
    assert page_errors == []
    assert RewardConfig.objects.get(name="binary-top30").recommended
