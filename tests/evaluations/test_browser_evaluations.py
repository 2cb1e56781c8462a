"""A real browser starts an evaluation from the Evaluations page: a real worker scores it,
the list shows its progress to the end, and the selected evaluations land side by side in
the comparison table and charts."""

from __future__ import annotations

import pytest

from evaluations.models import Evaluation
from execution.samples import FAST, SLOW
from tests.conftest import log_in
from tests.evaluations.test_evaluations import evaluate_upload, lines

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_evaluation_started_in_the_browser_lands_in_the_comparison(
    asgi_server, open_page, page_errors, celery_worker_process, built, alice, tmp_path
):
    baseline = evaluate_upload(alice, lines({"problem": "sum", "program": SLOW}), complexity=False)
    upload = tmp_path / "fast.jsonl"
    upload.write_text(lines(*[{"problem": "sum", "program": FAST}] * 2, "not json"))
    page = open_page()
    log_in(page, asgi_server, "/evaluations/")
    form = page.locator("#evaluate-form")
    form.locator("input[name=source][value=completions]").check()
    form.locator("input[name=completions]").set_input_files(str(upload))
    form.locator("select[name=split]").select_option("all")
    form.locator("input[name=complexity]").uncheck()
    form.locator("input[name=name]").fill("fast uploads")
    form.locator("button[type=submit]").click()
    page.wait_for_url("**/evaluations/#evaluation-*")
    new_id = int(page.url.rsplit("-", 1)[1])
    row = page.locator(f"#evaluation-{new_id}")
    row.locator("progress").wait_for(timeout=10_000)
    page.wait_for_selector(f"#evaluation-{new_id}[data-status=done]", timeout=120_000)
    assert row.locator("td").nth(8).inner_text() == "1.000"  # p100
    assert "line 3: not JSON" in row.locator("details").text_content()
    row.locator("input[type=checkbox]").check()
    page.locator(f"#evaluation-{baseline.pk} input[type=checkbox]").check()
    page.click("#compare-selected")
    page.wait_for_selector("#chart-winrate .heatmaplayer", timeout=15_000)
    assert page.locator("#comparison-table tbody tr").count() == 2
    curves = page.evaluate(
        "document.getElementById('chart-ptau').data.map(t => [t.name, t.x, t.y])"
    )
    assert [name for name, _, _ in curves] == [
        f"#{new_id} fast uploads",
        f"#{baseline.pk} {baseline.name}",
    ]
    assert all(x == [100, 50, 30, 10] for _, x, _ in curves)
    assert curves[0][2][0] == 1.0  # p100 of the fast uploads
    matrix = page.evaluate("document.getElementById('chart-winrate').data[0].z")
    assert matrix[0][1] == 1.0 and matrix[1][0] == 0.0  # fast beats slow on the problem
    assert page_errors == []
    assert Evaluation.objects.get(pk=new_id).status == "done"
