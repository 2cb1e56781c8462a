"""What every API route answers beyond the schema's operations (issue 34, item 5): OPTIONS on
every route describes it (browsers, API explorers and CORS preflights send it; DRF's metadata
asked the scoring viewset for a serializer it did not have: a 500), and a path under /api/ that
names no resource is a JSON 404 whatever the method, in debug mode too (Django's debug 404 page
is HTML, which an API client cannot read)."""

from __future__ import annotations

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


def routes(run_id: int) -> list[str]:
    return [
        "/api/",
        "/api/runs/",
        f"/api/runs/{run_id}/",
        f"/api/runs/{run_id}/metrics/",
        "/api/problems/",
        "/api/scoring/",
        "/api/scoring/1/",
        "/api/sandbox-failures/",
        "/api/sandbox-failures/scoring/1/retry/",
    ]


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_options_on_every_route_describes_it_and_never_fails(alice_api, alice_run, debug):
    with override_settings(DEBUG=debug):
        for path in routes(alice_run.pk):
            response = alice_api.options(path)
            assert response.status_code in (200, 404), (path, response.status_code)
            assert response["Content-Type"].startswith("application/json"), path
            if response.status_code == 200:
                assert response.json()["name"], path  # DRF's metadata: the view's name
    described = alice_api.options("/api/scoring/").json()
    assert "reward_config" in described["actions"]["POST"]  # the request it takes


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize(
    "path",
    ["/api/nothing/", "/api/runs/abc/", "/api/runs/1/nothing/", "/api/scoring/x/", "/api/v2/"],
)
def test_a_path_that_names_no_resource_is_a_json_404(alice_api, path, debug):
    with override_settings(DEBUG=debug):
        for method in ("get", "post", "patch", "delete"):
            response = getattr(alice_api, method)(path, {}, format="json")
            assert response.status_code == 404, (method, path, response.status_code)
            assert response["Content-Type"] == "application/json", (method, path)
            assert response.json() == {"detail": "Not found."}  # the schema's Error


def test_a_run_created_with_a_null_config_has_none(alice_api):
    # the schema allows any JSON value for config, null included: accepted, stored as no config
    response = alice_api.post("/api/runs/", {"name": "n", "config": None}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["config"] is None
