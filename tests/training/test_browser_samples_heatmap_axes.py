"""A real browser on a run's samples page (issue 35, item 6): the outcome heatmaps tick their
step axes at whole steps (a cell spans step ± 0.5; Plotly ticked the edges, −0.5 … 2.5),
the note on grey cells stays clear of the axes' labels, and the modebar of the title."""

from __future__ import annotations

import pytest

from problems.models import Problem
from tests.conftest import log_in
from tests.support.charts import assert_modebar_clears_title, boxes, overlaps, tick_labels
from tests.training.test_training_runs import start_run
from training.models import RolloutSample

pytestmark = pytest.mark.django_db(transaction=True)

CHART = "#chart-outcomes"


def sample(run, problem, step: int, index: int, correct: bool) -> RolloutSample:
    return RolloutSample(
        training=run.training, step=step, problem=problem, group=0, index=index,
        completion="", program="print(1)", reward=float(correct),
        verdict="OK" if correct else "WRONG_ANSWER", correct=correct,
        speed_percentile=20.0 if correct else None, policy_version=step, tokens=10,
        truncated=False,
    )  # fmt: skip


def test_the_samples_heatmap_ticks_whole_steps_and_its_note_clears_the_axes(
    asgi_server, open_page, page_errors, built, alice, tmp_path
):
    run = start_run(alice)
    problem = Problem.objects.get(slug="sum")
    RolloutSample.objects.bulk_create(
        sample(run, problem, step, index, correct=index <= step)
        for step in range(3)
        for index in range(4)
    )
    page = open_page()
    log_in(page, asgi_server, f"/runs/{run.pk}/samples/")
    page.wait_for_selector(f"{CHART} .heatmaplayer", timeout=15_000)
    page.screenshot(path=str(tmp_path / "samples.png"), full_page=True)

    for axis in ("xtick", "x2tick"):  # the two panels: correct, and correct and fast
        assert tick_labels(page, CHART, axis) == ["0", "1", "2"], axis

    note = page.get_by_text("not sampled at that step")
    assert note.count() == 1 and note.is_visible()
    box = note.bounding_box()
    note_box = [box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]]
    labels = boxes(page, CHART, ".xtick text", ".x2tick text", ".xtitle", ".x2title")
    for label in (b for group in labels for b in group):
        assert not overlaps(note_box, label), (note_box, label)
    assert_modebar_clears_title(page, CHART, tmp_path / "samples-hovered.png")
    assert page_errors == []
