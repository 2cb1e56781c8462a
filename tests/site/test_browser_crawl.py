"""A crawler in a real browser (issue 17, item 8): log in, follow every link of every page the
navigation reaches, with one object of each kind in the database; fail on a link into the API
(its browsable pages are not the product's), on any 4xx/5xx and on any console error."""

from __future__ import annotations

import re
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

from tests.conftest import log_in

pytestmark = pytest.mark.django_db(transaction=True)

# API pages a link may lead to on purpose: the interactive docs and the schema they read
API_DOCS = ("/api/docs/", "/api/redoc/", "/api/schema/")
NOT_FOLLOWED = ("/accounts/logout/", "/admin/")
MAX_PAGES = 200


@pytest.fixture
def one_of_each(built, alice, alice_run):
    """A run with metrics, an evaluation and a judge batch (the built problem and its build
    come from `built`)."""
    from execution.samples import FAST
    from runs import services as runs
    from tests.evaluations.test_evaluations import evaluate_upload, lines
    from tests.judges.test_judges import PAIRS, batch_of

    runs.do_ingest_metrics(
        alice_run.pk,
        {"points": [{"step": s, "key": "rewards/mean", "value": s / 10} for s in range(3)]},
    )
    evaluate_upload(alice, lines({"problem": "sum", "program": FAST}))
    batch_of(alice, {"judge": "analyzer"}, ("pairs.jsonl", PAIRS))


def test_every_link_of_every_page_leads_to_a_page_without_errors(
    asgi_server, open_page, page_errors, one_of_each
):
    page = open_page()
    console: list[str] = []
    page.on(
        "console", lambda m: console.append(f"{page.url}: {m.text}") if m.type == "error" else None
    )
    log_in(page, asgi_server, "/")
    origin = urlparse(asgi_server).netloc
    queue, seen, visited, problems = ["/"], {"/"}, 0, []
    while queue and visited < MAX_PAGES:
        path = queue.pop(0)
        answer = page.request.get(asgi_server + path)
        if answer.status >= 400:
            problems.append(f"{path}: HTTP {answer.status}")
            continue
        if "text/html" not in answer.headers.get("content-type", ""):
            continue  # a download (CSV, JSON): its status is what counts
        page.goto(asgi_server + path, wait_until="networkidle")  # rows drawn from JSON too
        visited += 1
        if path.startswith(API_DOCS):
            continue  # Swagger UI's own links are not ours to follow
        hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
        for href in hrefs:
            url = urlparse(urldefrag(urljoin(asgi_server + path, href))[0])
            if url.scheme not in ("http", "https") or url.netloc != origin:
                continue
            target = url.path + (f"?{url.query}" if url.query else "")
            if url.path.startswith("/api/") and not url.path.startswith(API_DOCS):
                problems.append(f"{path} links to the API: {href}")
                continue
            if target not in seen and not url.path.startswith(NOT_FOLLOWED):
                seen.add(target)
                queue.append(target)
    assert problems == [] and console == [] and page_errors == []
    assert visited >= 15, f"only {visited} pages reached: {sorted(seen)}"
    # one object of each kind reached (ids differ between databases: PostgreSQL's sequences
    # do not restart between tests)
    for kind in (r"/runs/\d+/$", r"/problems/sum/$", r"/judges/\d+/$", r"/dataset/\?build=\d+$"):
        assert any(re.match(kind, p) for p in seen), (kind, sorted(seen))
