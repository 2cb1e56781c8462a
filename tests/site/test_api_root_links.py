"""The API root (/api/) links only what a GET answers (issue 35, item 6): it linked
/api/scoring/, which takes POSTs only and answered its GET 405."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_every_link_of_the_api_root_answers_a_get(alice_api):
    root = alice_api.get("/api/")
    assert root.status_code == 200
    links = root.json()
    assert {"runs", "problems"} <= set(links) and "scoring" not in links
    answers = {name: alice_api.get(url).status_code for name, url in links.items()}
    # a GET each link invites is served: never refused for its method (405); a list that
    # needs a filter (samples: ?run=) may answer 400 naming it
    assert all(code in (200, 400) for code in answers.values()), answers
    assert answers["runs"] == answers["problems"] == 200


def test_scoring_still_takes_posts_where_the_root_no_longer_links(alice_api):
    # the route is still there for what it does: a bad request is named, not a 404 or 405
    assert alice_api.post("/api/scoring/", {}, format="json").status_code == 400
