"""A real browser on the API docs pages (issue 35, item 6): each has a visible way back to the
dashboard, and every request it makes stays on this server (Redoc's page fetched Google
Fonts, which an offline install cannot reach)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.conftest import log_in

pytestmark = pytest.mark.django_db(transaction=True)

# each docs page and an element it draws once its script has read the schema
DOCS = {"/api/docs/": ".swagger-ui .info .title", "/api/redoc/": ".api-content h1"}


@pytest.mark.parametrize("path", DOCS)
def test_the_api_docs_link_back_to_the_dashboard_and_load_nothing_from_elsewhere(
    asgi_server, open_page, page_errors, alice, path, tmp_path
):
    page = open_page()
    log_in(page, asgi_server, "/")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(asgi_server + path, wait_until="networkidle")
    page.wait_for_selector(DOCS[path], timeout=15_000)
    assert "codeopt API" in page.locator(DOCS[path]).inner_text()
    page.screenshot(path=str(tmp_path / "docs.png"))

    here = urlparse(asgi_server).netloc
    elsewhere = [url for url in requested if urlparse(url).scheme in ("http", "https")
                 and urlparse(url).netloc != here]  # fmt: skip
    assert requested and elsewhere == []
    back = page.get_by_role("link", name="codeopt dashboard")
    assert back.is_visible()
    back.click()
    page.wait_for_url(f"{asgi_server}/", wait_until="load")
    assert page_errors == []
