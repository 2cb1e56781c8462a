"""A real browser on a judged batch: the category breakdown is drawn beside the paper's, a
diff is shown side by side with highlighted code, and a person's correction is saved and
enters the agreement matrix."""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright

from judges.models import Judgment
from tests.test_browser_live_chart import CHROMIUM_ARGS, log_in
from tests.test_judges import PAIRS, batch_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_diff_is_reviewed_and_corrected_in_the_browser(asgi_server, chromium_path, alice):
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    pair = batch.pairs.get(kind="faster")
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        log_in(page, asgi_server, f"/judges/{batch.pk}/")
        page.wait_for_selector("#chart-breakdown .barlayer", timeout=15_000)
        bars = page.evaluate(
            "document.getElementById('chart-breakdown').data.map(t => [t.name, t.y])"
        )
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
        browser.close()
    assert errors == []
    human = Judgment.objects.get(pair=pair, judge="human")
    assert (human.category, human.by) == ("algorithmic", "alice")
