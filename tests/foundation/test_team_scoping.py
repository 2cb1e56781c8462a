"""Who sees what: team members see their team's runs, staff see all, outsiders get 404."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.conftest import token_client

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_outsider_gets_404_for_another_teams_run_in_the_api(bob_api, alice_run):
    assert bob_api.get(f"/api/runs/{alice_run.pk}/").status_code == 404
    assert bob_api.get(f"/api/runs/{alice_run.pk}/metrics/").status_code == 404
    assert (
        bob_api.patch(f"/api/runs/{alice_run.pk}/", {"notes": "x"}, format="json").status_code
        == 404
    )


def test_an_outsider_cannot_write_metrics_to_another_teams_run(bob_api, alice_run):
    response = bob_api.post(
        f"/api/runs/{alice_run.pk}/metrics/",
        {"points": [{"step": 1, "key": "k", "value": 1}]},
        format="json",
    )
    assert response.status_code == 404 and response.json()["field"] == "run"  # as an unknown run
    assert not alice_run.series.exists()


def test_the_run_list_shows_only_the_users_teams(alice_api, bob_api, alice_run):
    assert [r["id"] for r in alice_api.get("/api/runs/").json()["results"]] == [alice_run.pk]
    assert bob_api.get("/api/runs/").json()["results"] == []


def test_staff_see_every_run(make_user, alice_run):
    staff = token_client(make_user("root", staff=True))
    assert staff.get(f"/api/runs/{alice_run.pk}/").status_code == 200


def test_a_teammate_sees_and_changes_the_run(make_user, alice_run):
    carol = token_client(make_user("carol", "red"))
    response = carol.patch(f"/api/runs/{alice_run.pk}/", {"status": "stopped"}, format="json")
    assert response.status_code == 200
    alice_run.refresh_from_db()
    assert alice_run.status == "stopped" and alice_run.finished_at is not None


def test_a_runs_config_and_team_cannot_change_after_creation(alice_api, alice_run):
    url = f"/api/runs/{alice_run.pk}/"
    response = alice_api.patch(url, {"config": {"lr": 1}, "notes": "x"}, format="json")
    assert response.status_code == 400 and "config" in response.json()
    assert alice_api.patch(url, {"team": "blue"}, format="json").status_code == 400
    alice_run.refresh_from_db()
    assert alice_run.notes == "" and alice_run.config == ""


def test_notes_and_tags_can_be_edited(alice_api, alice_run):
    response = alice_api.patch(
        f"/api/runs/{alice_run.pk}/", {"notes": "lr too high", "tags": ["bad"]}, format="json"
    )
    assert response.status_code == 200
    alice_run.refresh_from_db()
    assert alice_run.notes == "lr too high" and alice_run.tags == ["bad"]


def test_a_token_acts_as_its_user(alice_api, alice):
    response = alice_api.post("/api/runs/", {"name": "via-token"}, format="json")
    assert response.json()["owner"] == "alice"


def test_a_user_cannot_create_a_run_in_a_team_they_are_not_in(alice_api):
    response = alice_api.post("/api/runs/", {"name": "x", "team": "blue"}, format="json")
    assert response.status_code == 400 and "team" in response.json()


def test_writes_need_a_login_or_a_token(alice_run):
    anonymous = APIClient()
    assert anonymous.post("/api/runs/", {"name": "x"}, format="json").status_code in (401, 403)
    response = anonymous.post(
        f"/api/runs/{alice_run.pk}/metrics/",
        {"points": [{"step": 1, "key": "k", "value": 1}]},
        format="json",
    )
    assert response.status_code in (401, 403)
    assert not alice_run.series.exists()


def test_a_session_write_without_a_csrf_token_is_refused(alice, alice_run):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(alice)
    response = browser.post(
        f"/api/runs/{alice_run.pk}/metrics/",
        {"points": [{"step": 1, "key": "k", "value": 1}]},
        format="json",
    )
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]


def test_pages_need_a_login_and_hide_other_teams_runs(alice, bob, alice_run):
    assert Client().get(f"/runs/{alice_run.pk}/").status_code == 302
    browser = Client()
    browser.force_login(bob)
    assert browser.get(f"/runs/{alice_run.pk}/").status_code == 404
    assert browser.get(f"/runs/compare/?ids={alice_run.pk}").status_code == 404
    assert "alice-run" not in browser.get("/").content.decode()
    browser.force_login(alice)
    assert "alice-run" in browser.get("/").content.decode()
    assert browser.get(f"/runs/{alice_run.pk}/").status_code == 200


def test_the_login_form_carries_a_csrf_token():
    page = Client().get("/accounts/login/").content.decode()
    assert 'name="csrfmiddlewaretoken"' in page


def test_the_run_list_filters_by_text_and_status(alice, alice_run):
    from runs import services

    services.do_create_run(owner=alice, team=alice_run.team, name="other", tags=["sweep-7"])
    browser = Client()
    browser.force_login(alice)
    page = browser.get("/?q=sweep-7").content.decode()
    assert "other" in page and "alice-run" not in page
    page = browser.get("/?status=running").content.decode()
    assert "No runs match." in page
