"""/runs/compare/ with no runs picked (issue 35, item 6): the compare page, saying how to
pick runs, not a 404; an id the user cannot see stays a 404."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query", ["", "?ids=", "?ids=,"])
def test_the_compare_page_without_runs_says_how_to_pick_them(client, alice, query):
    client.force_login(alice)
    response = client.get(f"/runs/compare/{query}")
    assert response.status_code == 200
    page = response.content.decode()
    assert '<a href="/">pick runs to compare</a>' in page
    assert "codeoptCharts.start" not in page  # no charts to load


def test_a_run_the_user_cannot_see_is_still_not_found(client, alice, bob, alice_run):
    client.force_login(bob)
    assert client.get(f"/runs/compare/?ids={alice_run.pk}").status_code == 404
