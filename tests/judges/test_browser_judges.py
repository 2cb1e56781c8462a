"""A real browser on a judged batch: the category breakdown is drawn beside the paper's, a
diff is shown side by side with highlighted code, and a person's correction is saved and
enters the agreement matrix."""

from __future__ import annotations

import pytest

from judges.models import Judgment
from tests.conftest import log_in
from tests.judges.test_judges import PAIRS, batch_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_diff_is_reviewed_and_corrected_in_the_browser(
    asgi_server, open_page, page_errors, alice
):
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    pair = batch.pairs.get(kind="faster")
    page = open_page()
    log_in(page, asgi_server, f"/judges/{batch.pk}/")
    page.wait_for_selector("#chart-breakdown .barlayer", timeout=15_000)
    bars = page.evaluate("document.getElementById('chart-breakdown').data.map(t => [t.name, t.y])")
    assert bars[0][0] == "analyzer (2 pairs)" and bars[-1][0].startswith("paper")
    assert bars[0][1][3] == 1.0  # both judged pairs: math_shortcut (the 4th category)
    section = page.locator(f"#pair-{pair.pk}")
    assert section.locator(".diff tr.replace").count() >= 1
    builtins = section.locator(".diff .code.right .nb")  # pygments: builtin names
    assert "print" in builtins.all_inner_texts()
    section.locator("select[name=category]").select_option("algorithmic")
    section.locator("input[name=rationale]").fill("closed form, but I call it algorithmic")
    section.locator("button[type=submit]").click()
    page.wait_for_selector(f"#pair-{pair.pk} tr[data-judge=human]", timeout=10_000)
    page.wait_for_selector("#chart-agreement .heatmaplayer", timeout=15_000)
    titles = page.evaluate(
        "document.getElementById('chart-agreement').layout.annotations.map(a => a.text)"
    )
    assert titles == ["analyzer vs human: 0% agree over 1 pairs"]
    assert page_errors == []
    human = Judgment.objects.get(pair=pair, judge="human")
    assert (human.category, human.by) == ("algorithmic", "alice")


def test_the_diff_review_is_a_work_queue_scored_against_the_ground_truth(
    asgi_server, open_page, page_errors, alice
):
    """Journey 9c: a labelled batch scores its judge against the truth, pages its 63 pairs,
    moves by keys, and a correction keeps the filter and the page it was made on."""
    from judges.labelled import LABELLED

    batch = batch_of(alice, {"judge": "analyzer"}, ("labelled.jsonl", LABELLED.read_text()))
    truths = list(batch.pairs.values_list("true_category", flat=True))
    assert len(truths) == 63 and all(truths)
    verdicts = Judgment.objects.filter(pair__batch=batch, judge="analyzer").exclude(category="")
    right = sum(v.category == v.pair.true_category for v in verdicts.select_related("pair"))
    page = open_page()
    log_in(page, asgi_server, f"/judges/{batch.pk}/")
    row = page.locator("#truth-accuracy tr[data-judge=analyzer]")
    assert f"{right} of {verdicts.count()} right" in row.inner_text()
    page.wait_for_selector("#chart-truth .heatmaplayer", timeout=15_000)
    scale = page.evaluate("document.getElementById('chart-truth').data[0].colorscale[0]")
    assert scale == [0, "#ffffff"]  # an empty cell is white
    assert page.locator("section.pair").count() == 10
    assert "Pairs 1–10 of 63" in page.locator("nav.pager").first.inner_text()
    page.keyboard.press("j")
    page.keyboard.press("j")
    second = page.locator("section.pair").nth(1).get_attribute("id")
    assert page.evaluate("document.body.dataset.currentPair") == second
    page.keyboard.press("n")
    page.wait_for_url("**page=2**")
    assert "Pairs 11–20 of 63" in page.locator("nav.pager").first.inner_text()

    # filter by a category, go to its second page, correct a pair there
    page.select_option("#review-filters select[name=category]", "io")
    page.click("#review-filters button[type=submit]")
    page.wait_for_url("**category=io**")
    shown = page.locator("section.pair")
    assert all(c == "io" for c in shown.evaluate_all("els => els.map(e => e.dataset.category)"))
    target = shown.first
    pair_id = target.get_attribute("id")
    target.locator("select[name=category]").select_option("algorithmic")
    target.locator("button[type=submit]").click()
    page.wait_for_url(f"**#{pair_id}")
    assert "category=io" in page.url
    assert page.locator("#review-filters select[name=category]").input_value() == "io"
    corrected = page.locator(f"#{pair_id} tr[data-judge=human]")
    assert "algorithmic" in corrected.inner_text()
    assert page_errors == []
