"""Run page data for 20 keys x 100,000 steps (2,000,000 points) on PostgreSQL.

Figures: the server time of GET /api/runs/<id>/metrics/?max_points=2000 (all 20 series,
downsampled with extremes kept; target < 500 ms), measured on loopback as the median of
repeated requests, and the time a real Chromium takes from navigation to every chart drawn
(target < 2 s; issue 17: 40 charts usable in < 1.5 s), split into what the page spends it
on (performance marks set by static/runs/charts.js): the HTML and scripts, the series
request, parsing and merging it, and drawing the charts.

    .venv/bin/python benchmarks/run_page_read.py [--steps 100000] [--keys 20] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
import urllib.request

from _harness import daphne, make_owner, recreate_database, report, setup_django

CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def fill(run_id: int, keys: int, steps: int) -> None:
    """Write the points in SQL (the ingest path is measured by ingest_throughput.py)."""
    from django.db import connection

    from runs.models import MetricSeries

    with connection.cursor() as cursor:
        for k in range(keys):
            series = MetricSeries.objects.create(
                run_id=run_id,
                key=f"{['rewards', 'groups', 'losses', 'eval'][k % 4]}/metric_{k:02d}",
            )
            cursor.execute(
                """INSERT INTO runs_metricpoint (series_id, step, value, recorded_at)
                   SELECT %s, s, sin(s / 500.0) + random() * 0.1
                                 + CASE WHEN s %% 33333 = 7 THEN 50 ELSE 0 END,
                          now() - (%s - s) * interval '10 ms'
                   FROM generate_series(0, %s - 1) AS s""",
                [series.id, steps, steps],
            )
            MetricSeries.objects.filter(pk=series.pk).update(
                count=steps, first_step=0, last_step=steps - 1
            )
    from runs import services
    from runs.models import Run

    services.do_rebuild_rollups(Run.objects.get(pk=run_id))  # as ingest would have kept them
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE runs_metricpoint")
        cursor.execute("VACUUM ANALYZE runs_metricrollup")
        cursor.execute(
            "UPDATE runs_run SET last_step = %s, status = 'running' WHERE id = %s",
            [steps - 1, run_id],
        )


def time_api(url: str, token: str, run_id: int, repeat: int) -> dict:
    timings = []
    size = 0
    for _ in range(repeat):
        request = urllib.request.Request(
            f"{url}/api/runs/{run_id}/metrics/?max_points=2000",
            headers={"Authorization": f"Token {token}"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=60) as response:
            size = len(response.read())
        timings.append(time.perf_counter() - started)
    return {
        "api_median_ms": round(1000 * statistics.median(timings)),
        "api_max_ms": round(1000 * max(timings)),
        "response_kib": size // 1024,
    }


def time_browser(url: str, run_id: int, repeat: int) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{url}/accounts/login/")
        page.fill("input[name=username]", "bench")
        page.fill("input[name=password]", "bench-password")
        page.click("button[type=submit]")
        page.wait_for_load_state()
        loads, parts = [], []
        for _ in range(repeat):
            started = time.perf_counter()
            page.goto(f"{url}/runs/{run_id}/")
            page.wait_for_selector("body[data-charts-ready='1']", timeout=60_000)
            loads.append(time.perf_counter() - started)
            parts.append(page.evaluate(SPLIT))
        charts = page.locator(".chart.js-plotly-plot").count()
        browser.close()
    split = {key: round(statistics.median(p[key] for p in parts)) for key in parts[0]}
    return {
        "page_ready_median_ms": round(1000 * statistics.median(loads)),
        "page_ready_max_ms": round(1000 * max(loads)),
        "charts_drawn": charts,
        "split_median_ms": split,
    }


SPLIT = """() => {
  const mark = (name) => performance.getEntriesByName(name)[0].startTime;
  const nav = performance.getEntriesByType("navigation")[0];
  const series = performance.getEntriesByType("resource").find((e) => e.name.includes("/metrics/"));
  return {
    html_and_scripts: nav.domContentLoadedEventEnd,
    series_request: series.responseEnd - series.startTime,
    series_parsed: mark("codeopt-series-loaded") - series.responseEnd,
    drawing: mark("codeopt-charts-drawn") - mark("codeopt-series-loaded"),
    total: mark("codeopt-charts-drawn"),
  };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    recreate_database()
    setup_django()
    from runs import services

    user, team, token = make_owner()
    run = services.do_create_run(owner=user, team=team, name="read-benchmark")
    fill(run.pk, args.keys, args.steps)
    with daphne() as url:
        figures = time_api(url, token, run.pk, args.repeat)
        figures.update(time_browser(url, run.pk, args.repeat))
    report(
        "run_page_read",
        {"keys": args.keys, "steps": args.steps, "points": args.keys * args.steps, **figures},
    )


if __name__ == "__main__":
    main()
