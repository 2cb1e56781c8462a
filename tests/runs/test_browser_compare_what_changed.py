"""A real browser on the compare page answers "what changed" (issue 35, item 3): a table of
the config keys that differ, legends naming each run in full below the plot (on every panel,
one run's too), a panel filter with its count, and runs grouped by a differing config key into
a mean and a min–max band per group."""

from __future__ import annotations

import statistics

import pytest
from rest_framework.authtoken.models import Token

from foundation.tenancy import Team
from runs import services
from tests.conftest import log_in
from tests.runs.test_browser_live_chart import post

pytestmark = pytest.mark.django_db(transaction=True)

SEED = {"seed": 7, "optimizer": {"betas": [0.9, 0.99]}}  # the same in every run
CONFIGS = {  # run name: config; the first two share their learning rate
    "demo-paper (binary-top50)": {
        **SEED,
        "learning_rate": 3e-4,
        "group_size": 8,
        "kl": {"beta": 0.0},
    },
    "demo-paper (graded-top50, larger groups)": {
        **SEED,
        "learning_rate": 3e-4,
        "group_size": 16,
        "kl": {"beta": 0.04},
    },
    "demo-paper (binary-top50, low learning rate)": {
        **SEED,
        "learning_rate": 1e-5,
        "group_size": 8,
    },
}
REWARDS = [  # rewards/mean of each run at steps 0-3
    [0.10, 0.20, 0.30, 0.40],
    [0.30, 0.50, 0.40, 0.80],
    [0.05, 0.05, 0.10, 0.15],
]


def chart(key: str) -> str:
    return f"document.querySelector('.chart[data-key=\"{key}\"]')"


def legend_text(page, key: str) -> str:
    """The entries of a panel's legend as drawn (SVG text), one a line."""
    entries = page.locator(f'.chart[data-key="{key}"] .legend .legendtext')
    return "\n".join(entries.all_text_contents())


def test_the_compare_page_shows_what_changed_names_runs_filters_panels_and_groups_runs(
    asgi_server, open_page, page_errors, alice
):
    token = Token.objects.create(user=alice).key
    team = Team.objects.get(name="red")
    runs = []
    for (name, config), rewards in zip(CONFIGS.items(), REWARDS, strict=True):
        run = services.do_create_run(owner=alice, team=team, name=name, config=config)
        points = [{"step": s, "key": "rewards/mean", "value": v} for s, v in enumerate(rewards)]
        points += [{"step": s, "key": "eval/p100", "value": v / 2} for s, v in enumerate(rewards)]
        post(asgi_server, token, run.pk, points)
        runs.append(run)
    # a metric only the last run logs: its panel has one run
    post(asgi_server, token, runs[2].pk, [{"step": 0, "key": "losses/policy", "value": 0.5}])
    names = [f"#{run.pk} {run.name}" for run in runs]

    page = open_page()
    log_in(page, asgi_server, "/runs/compare/?ids=" + ",".join(str(r.pk) for r in runs))
    page.wait_for_function("document.body?.dataset.chartsReady === '1'", timeout=15_000)
    page.wait_for_function(f"{chart('rewards/mean')}?.dataset.points === '12'", timeout=10_000)

    # the table: exactly the keys that differ, one column per run (newest first), — where a
    # run lacks the key
    table = page.locator("#config-differences")
    keys = table.locator("tbody tr").evaluate_all("(rows) => rows.map((r) => r.dataset.key)")
    assert keys == ["group_size", "learning_rate", "kl.beta"]
    headers = table.locator("thead th").all_inner_texts()
    assert headers == ["config key", *reversed(names)]
    cells = table.locator('tbody tr[data-key="kl.beta"] td').all_inner_texts()
    assert cells == ["—", "0.04", "0.0"]
    cells = table.locator('tbody tr[data-key="learning_rate"] td').all_inner_texts()
    assert cells == ["1e-05", "0.0003", "0.0003"]

    # legends name each run in full, in rows below the axis title, and leave the plot the
    # panel's width
    rewards_legend = legend_text(page, "rewards/mean")
    for name in names:
        assert name in rewards_legend
    boxes = page.evaluate(
        f"""(() => {{
            const div = {chart("rewards/mean")};
            const box = (sel) => div.querySelector(sel).getBoundingClientRect();
            return {{legend: box('.legend'), plot: box('.nsewdrag'), xtitle: box('.xtitle'),
                     panel: div.getBoundingClientRect()}};
        }})()"""
    )
    assert boxes["legend"]["top"] >= boxes["xtitle"]["bottom"]
    assert boxes["legend"]["bottom"] <= boxes["panel"]["bottom"]
    assert boxes["plot"]["width"] >= 0.8 * boxes["panel"]["width"]
    assert page.evaluate(f"{chart('rewards/mean')}._fullLayout.legend.orientation") == "h"
    # a panel only one run has data in has a legend all the same
    assert page.evaluate(f"{chart('losses/policy')}._fullLayout.showlegend") is True
    assert legend_text(page, "losses/policy").strip() == names[2]

    page.screenshot(path="/tmp/compare.png", full_page=True)

    # the panel filter: case-insensitive, on the metric key; the count follows
    count = page.locator("#panel-count")
    assert count.inner_text() == "3/3 panels"
    page.fill("#panel-filter", "LOSSES")
    page.wait_for_function("document.querySelector('#panel-count').textContent === '1/3 panels'")
    assert page.locator('.chart[data-key="losses/policy"]').is_visible()
    assert not page.locator('.chart[data-key="rewards/mean"]').is_visible()
    assert not page.locator("section[data-prefix=rewards]").is_visible()
    page.fill("#panel-filter", "S/")  # rewards/mean and losses/policy, not eval/p100
    page.wait_for_function("document.querySelector('#panel-count').textContent === '2/3 panels'")
    assert not page.locator('.chart[data-key="eval/p100"]').is_visible()
    assert page.locator('.chart[data-key="rewards/mean"]').is_visible()
    page.fill("#panel-filter", "")
    page.wait_for_function("document.querySelector('#panel-count').textContent === '3/3 panels'")
    assert page.locator('.chart[data-key="losses/policy"]').is_visible()

    # grouped by learning rate: the differing keys are offered first; a group per value
    options = page.eval_on_selector_all("#group-by option", "(os) => os.map((o) => o.value)")
    assert options[1:4] == ["config:group_size", "config:learning_rate", "config:kl.beta"]
    page.select_option("#group-by", "config:learning_rate")
    page.wait_for_function(
        f"{chart('rewards/mean')}?._fullData.filter((t) => t.meta.role === 'mean').length === 2",
        timeout=5_000,
    )
    traces = page.evaluate(
        f"""{chart("rewards/mean")}.data.map((t) => ({{role: t.meta.role, group: t.meta.group,
            name: t.name, x: [...t.x], y: [...t.y]}}))"""
    )
    means = {t["group"]: t for t in traces if t["role"] == "mean"}
    assert {t["name"] for t in means.values()} == {
        "learning_rate=0.0003 (2 runs)",
        "learning_rate=1e-05 (1 run)",
    }
    shared = [REWARDS[0], REWARDS[1]]  # the two runs at 3e-4
    assert means["0.0003"]["x"] == [0, 1, 2, 3]
    assert means["0.0003"]["y"] == pytest.approx(
        [statistics.fmean(v) for v in zip(*shared, strict=True)]
    )
    assert means["1e-05"]["y"] == pytest.approx(REWARDS[2])
    band = {(t["group"], t["role"]): t["y"] for t in traces if t["role"].startswith("band")}
    assert band["0.0003", "band-high"] == pytest.approx([max(v) for v in zip(*shared, strict=True)])
    assert band["0.0003", "band-low"] == pytest.approx([min(v) for v in zip(*shared, strict=True)])
    assert band["1e-05", "band-low"] == pytest.approx(REWARDS[2])  # one run: no spread
    legend = legend_text(page, "rewards/mean")
    assert "learning_rate=0.0003 (2 runs)" in legend and "learning_rate=1e-05 (1 run)" in legend
    # the panel says which band it draws
    assert page.locator('.chart[data-key="rewards/mean"]').get_attribute("data-band") == "min–max"
    assert "min–max band" in page.locator('.chart[data-key="rewards/mean"] .xtitle').text_content()
    # one run's panel, grouped: its one group, named with the run count
    assert legend_text(page, "losses/policy").strip() == "learning_rate=1e-05 (1 run)"
    assert page_errors == []
