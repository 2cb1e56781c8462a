"""Reading what a real browser drew in a Plotly chart: tick labels, boxes, overlaps."""

from __future__ import annotations

from pathlib import Path


def tick_labels(page, chart: str, axis: str) -> list[str]:
    """The drawn tick labels of `axis` ("xtick", "x2tick", "ytick") of the chart `chart` (a
    CSS selector)."""
    return page.evaluate(
        "([chart, axis]) => [...document.querySelector(chart).querySelectorAll(`.${axis} text`)]"
        ".map((t) => t.textContent)",
        [chart, axis],
    )


def number(label: str) -> float:
    """A tick label as a number (Plotly writes minus as U+2212, thousands with commas)."""
    return float(label.replace("−", "-").replace(",", ""))


BOXES = """([chart, selectors]) => {
  const root = document.querySelector(chart);
  return selectors.map((s) => [...root.querySelectorAll(s)].map((el) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  }));
}"""


def boxes(page, chart: str, *selectors: str) -> list[list[list[float]]]:
    """For each selector, the client boxes [left, top, right, bottom] of its elements in
    the chart."""
    return page.evaluate(BOXES, [chart, list(selectors)])


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def assert_modebar_clears_title(page, chart: str, screenshot: Path | None = None) -> None:
    """Plotly's modebar (drawn in the top right corner, shown on hover) covers no part of
    the chart's title; `screenshot`: where to keep a picture of the hovered chart."""
    page.hover(chart)
    if screenshot:
        page.locator(chart).screenshot(path=str(screenshot))
    (bars, titles) = boxes(page, chart, ".modebar", ".gtitle")
    assert bars and titles, (chart, bars, titles)
    assert not overlaps(bars[0], titles[0]), (chart, "modebar", bars[0], "title", titles[0])
