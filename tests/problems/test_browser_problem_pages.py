"""A real browser on the problem-set pages after a real build and calibration: the funnel,
the runtime distributions and the drift fit are drawn from measured data, without errors."""

from __future__ import annotations

import pytest

from problems import services
from problems.models import InputGenerator, Problem
from tests.conftest import log_in
from tests.pipeline_problems import FAST_CONFIG
from tests.problems.test_dataset_build import import_sum, run_build

pytestmark = pytest.mark.django_db(transaction=True)


def test_dataset_problem_and_calibration_pages_draw_measured_data(
    asgi_server, open_page, page_errors, alice, tmp_path
):
    page = open_page()
    log_in(page, asgi_server, "/dataset/")  # before any build: an empty chart says so
    page.wait_for_selector("#chart-funnel .annotation-text", timeout=15_000)
    assert page.locator("#chart-funnel .annotation-text").text_content() == "no finished build yet"
    assert page.locator("#chart-funnel .xtick").count() == 0  # no made-up -1..6 scale
    page.goto(f"{asgi_server}/timing/")
    page.wait_for_selector("#chart-cv .annotation-text", timeout=15_000)
    for chart in ("chart-jitter", "chart-cv", "chart-throughput", "chart-wait"):
        assert page.locator(f"#{chart} .annotation-text").count() == 1, chart  # says it is empty
        assert page.locator(f"#{chart} .xtick, #{chart} .ytick").count() == 0, chart

    import_sum(tmp_path)
    build = run_build(["sum"])
    calibration = services.do_calibrate(repeats=2)
    page.goto(f"{asgi_server}/dataset/")

    page.wait_for_selector("#chart-funnel .funnellayer", timeout=15_000)
    stages = page.evaluate("document.getElementById('chart-funnel').data[0].y")
    counts = page.evaluate("document.getElementById('chart-funnel').data[0].x")
    assert stages[0] == "candidates" and stages[-1] == "time-discriminative"
    assert counts == [count for name, count in build.funnel[:5]]
    aside = page.evaluate(
        "document.getElementById('chart-funnel').data.map(t => [t.name, t.y[0], t.x[0]])"
    )
    assert ["untimeable", "untimeable", 0] in aside  # the line of problems no input slows
    row = page.locator(f'#builds tr[data-status="done"] >> text=#{build.pk}')
    row.wait_for(timeout=10_000)  # filled by the page's polling

    page.goto(f"{asgi_server}/problems/sum/")
    page.wait_for_selector("#chart-runtimes .boxlayer", timeout=15_000)
    traces = page.evaluate(
        "document.getElementById('chart-runtimes').data.map(t => [t.name, t.y.length])"
    )
    assert dict(traces) == {"correct (accepted)": 3, "wrong (labelled)": 1}
    axis = page.evaluate("document.getElementById('chart-runtimes').layout.yaxis.title.text")
    assert axis.startswith("CPU time per run (ms")
    assert page.locator("#chart-runtimes .ytick").count() > 0  # with data, the scale is drawn

    # the probe curve: every correct reference's time against SIZE, T_slow marked
    page.wait_for_selector("#chart-probes .scatterlayer", timeout=15_000)
    curves = page.evaluate(
        "document.getElementById('chart-probes').data.map(t => [t.name, t.x, t.y.length])"
    )
    measured = [
        g.name
        for g in InputGenerator.objects.filter(problem__slug="sum")
        for c in g.report["checks"]
        if c["name"] == "grows with SIZE" and c["passed"] is not None
    ]
    accepted = Problem.objects.get(slug="sum").solutions.filter(verdict_label="accepted")
    references = [s.name for s in accepted if s.language == "python" or s.language == "cpp"]
    assert measured and {c[0] for c in curves} == {
        f"{ref} · {g}" for ref in references for g in measured
    }
    for _, sizes, points in curves:
        assert sizes == sorted(sizes) and points == len(sizes) >= 2
    layout = page.evaluate("document.getElementById('chart-probes').layout")
    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
    assert layout["yaxis"]["title"]["text"].startswith("CPU time of one run (ms")
    assert layout["shapes"][0]["y0"] == 1000 * FAST_CONFIG.slow_target_s
    assert page.locator(".probe-why").count() == len(measured)

    page.goto(f"{asgi_server}/dataset/calibration/")
    page.wait_for_selector("#chart-calibration .scatterlayer", timeout=15_000)
    names = page.evaluate("document.getElementById('chart-calibration').data.map(t => t.name)")
    assert names[0] == "(stored, re-measured) pairs"
    assert names[1].startswith(f"fit: new = {calibration.slope:.3f}")
    points = page.evaluate("document.getElementById('chart-calibration').data[0].x.length")
    assert points == calibration.pairs == 3
    assert page_errors == []
