"""A real browser on the run list (config columns from each run's stored config, sorting, a
column picker) and the compare page (one colour per run, legends beside the axes, runs
grouped by tag or config value into a mean and a band)."""

from __future__ import annotations

import statistics

import pytest
from rest_framework.authtoken.models import Token

from foundation.tenancy import Team
from runs import services
from tests.conftest import log_in
from tests.runs.test_browser_live_chart import post

pytestmark = pytest.mark.django_db(transaction=True)


def make_run(owner, name: str, config, tags=()):
    team = Team.objects.get(name="red")
    return services.do_create_run(owner=owner, team=team, name=name, config=config, tags=tags)


def column_texts(page, col: str) -> list[str]:
    return page.evaluate(
        """(col) => {
            const index = [...document.querySelectorAll('#run-table thead th')]
                .findIndex((th) => th.dataset.col === col);
            return [...document.querySelectorAll('#run-table tbody tr[data-run]')]
                .map((row) => row.cells[index].textContent.trim());
        }""",
        col,
    )


def test_the_run_list_shows_config_columns_sorts_them_and_keeps_the_columns_picked(
    asgi_server, open_page, page_errors, alice
):
    base = {"model": "tiny", "reward_config": "binary-top30", "group_size": 8, "seed": 3}
    make_run(alice, "mid", {**base, "learning_rate": 1e-4})
    make_run(alice, "high", {**base, "learning_rate": 3e-4, "group_size": 16})
    make_run(alice, "low", {**base, "learning_rate": 1e-5, "reward_config": "rlvr"})
    make_run(alice, "verbatim", "lr=0.1 (not JSON)")

    page = open_page()
    log_in(page, asgi_server, "/")
    headers = page.locator("#run-table thead th:visible").all_inner_texts()
    for column in ("model", "reward_config", "group_size", "learning_rate"):
        assert column in headers
    assert "seed" not in headers  # a config key of its own: offered, not shown at first
    assert column_texts(page, "name") == ["verbatim", "low", "high", "mid"]  # newest first
    assert column_texts(page, "config:reward_config") == [
        "–",
        "rlvr",
        "binary-top30",
        "binary-top30",
    ]

    # numbers sort as numbers (1e-05 < 0.0001 < 0.0003), a run without the key last
    page.click('#run-table th[data-col="config:learning_rate"] button')
    assert column_texts(page, "config:learning_rate") == ["1e-05", "0.0001", "0.0003", "–"]
    assert column_texts(page, "name") == ["low", "mid", "high", "verbatim"]
    page.click('#run-table th[data-col="config:learning_rate"] button')
    assert column_texts(page, "name") == ["high", "mid", "low", "verbatim"]
    header = page.locator('#run-table th[data-col="config:learning_rate"]')
    assert header.get_attribute("aria-sort") == "descending"
    page.click('#run-table th[data-col="name"] button')
    assert column_texts(page, "name") == ["high", "low", "mid", "verbatim"]

    # the column picker: show a config key, hide another; kept on the next visit
    page.click("#column-picker summary")
    page.check('#column-picker input[data-col="config:seed"]')
    page.uncheck('#column-picker input[data-col="config:group_size"]')
    page.reload()
    headers = page.locator("#run-table thead th:visible").all_inner_texts()
    assert "seed" in headers and "group_size" not in headers
    cells = page.locator('#run-table tbody td[data-col="config:group_size"]')
    assert cells.count() == 4 and all(not cell.is_visible() for cell in cells.all())
    assert page_errors == []


REWARDS = {  # run index: rewards/mean at steps 0, 1, 2
    i: [round(0.1 * i + 0.05 * step, 6) for step in range(3)] for i in range(9)
}


def chart(key: str) -> str:
    return f"document.querySelector('.chart[data-key=\"{key}\"]')"


def traces_of(page, key: str, role: str) -> list[dict]:
    return page.evaluate(
        f"""{chart(key)}._fullData.filter((t) => t.meta.role === '{role}')
            .map((t) => ({{group: t.meta.group, runs: t.meta.runs, x: [...t.x], y: [...t.y],
                           color: t.line.color}}))"""
    )


def test_the_compare_page_colours_each_run_and_groups_runs_into_a_mean_and_a_band(
    asgi_server, open_page, page_errors, alice
):
    token = Token.objects.create(user=alice).key
    runs = []
    for i, values in REWARDS.items():
        config = {"reward_config": "binary" if i % 3 else "graded", "group_size": 8}
        run = make_run(alice, f"sweep-{i}", config, tags=["sweep", "even" if i % 2 == 0 else "odd"])
        points = [{"step": s, "key": "rewards/mean", "value": v} for s, v in enumerate(values)]
        post(asgi_server, token, run.pk, points)
        runs.append(run)

    page = open_page()
    log_in(page, asgi_server, "/runs/compare/?ids=" + ",".join(str(r.pk) for r in runs))
    page.wait_for_function(f"{chart('rewards/mean')}?.dataset.points === '27'", timeout=15_000)

    # nine runs, nine colours (the old palette had eight and wrapped around)
    colours = [t["color"] for t in traces_of(page, "rewards/mean", "raw")]
    assert len(colours) == 9 and len(set(colours)) == 9
    # the legend is beside the plot: clear of its area and of both axes' labels
    boxes = page.evaluate(
        f"""(() => {{
            const box = (sel) => {chart("rewards/mean")}.querySelector(sel).getBoundingClientRect();
            return {{legend: box('.legend'), plot: box('.nsewdrag'), xtitle: box('.xtitle'),
                     xticks: box('.xaxislayer-above'), ytitle: box('.ytitle')}};
        }})()"""
    )
    legend = boxes["legend"]
    for name in ("plot", "xtitle", "xticks", "ytitle"):
        other = boxes[name]
        apart = (
            legend["left"] >= other["right"]
            or legend["right"] <= other["left"]
            or legend["top"] >= other["bottom"]
            or legend["bottom"] <= other["top"]
        )
        assert apart, (name, legend, other)

    # grouped by a config value: per group the mean of its runs and a min–max band
    options = page.eval_on_selector_all("#group-by option", "(os) => os.map((o) => o.value)")
    assert {"tag", "config:reward_config", "config:group_size"} <= set(options)
    page.select_option("#group-by", "config:reward_config")
    page.wait_for_function(
        f"{chart('rewards/mean')}?._fullData.filter((t) => t.meta.role === 'mean').length === 2",
        timeout=5_000,
    )
    members = {"binary": [i for i in REWARDS if i % 3], "graded": [0, 3, 6]}
    means = {t["group"]: t for t in traces_of(page, "rewards/mean", "mean")}
    assert {g: t["runs"] for g, t in means.items()} == {"binary": 6, "graded": 3}
    for group, indexes in members.items():
        assert means[group]["x"] == [0, 1, 2]
        expected = [statistics.fmean(REWARDS[i][s] for i in indexes) for s in range(3)]
        assert means[group]["y"] == pytest.approx(expected)
    high = {t["group"]: t["y"] for t in traces_of(page, "rewards/mean", "band-high")}
    low = {t["group"]: t["y"] for t in traces_of(page, "rewards/mean", "band-low")}
    assert high["graded"] == pytest.approx([REWARDS[6][s] for s in range(3)])
    assert low["graded"] == pytest.approx([REWARDS[0][s] for s in range(3)])
    assert means["binary"]["color"] != means["graded"]["color"]

    # ±1 sd instead of min–max
    page.select_option("#group-spread", "sd")
    graded = [[REWARDS[i][s] for i in members["graded"]] for s in range(3)]
    sd_high = [statistics.fmean(v) + statistics.pstdev(v) for v in graded]
    page.wait_for_function(
        f"""Math.abs({chart("rewards/mean")}?._fullData.find((t) => t.meta.role === 'band-high'
            && t.meta.group === 'graded')?.y[0] - {sd_high[0]}) < 1e-9""",
        timeout=5_000,
    )
    high = {t["group"]: t["y"] for t in traces_of(page, "rewards/mean", "band-high")}
    assert high["graded"] == pytest.approx(sd_high)

    # by tag: a group per tag, a run in each of its tags' groups
    page.select_option("#group-by", "tag")
    page.wait_for_function(
        f"{chart('rewards/mean')}?._fullData.filter((t) => t.meta.role === 'mean').length === 3",
        timeout=5_000,
    )
    runs_per_tag = {t["group"]: t["runs"] for t in traces_of(page, "rewards/mean", "mean")}
    assert runs_per_tag == {"even": 5, "odd": 4, "sweep": 9}
    assert page_errors == []
