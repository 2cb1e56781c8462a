"""What every API route answers beyond the schema's operations (issue 34, item 5): OPTIONS on
every route describes it (browsers, API explorers and CORS preflights send it; DRF's metadata
asked the scoring viewset for a serializer it did not have: a 500), and a path under /api/ that
names no resource is a JSON 404 whatever the method, in debug mode too (Django's debug 404 page
is HTML, which an API client cannot read)."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


def routes(run_id: int) -> list[str]:
    """A few routes by hand (the API root, a missing object, a nested action) ..."""
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


def schema_routes(client, run_id: int) -> list[str]:
    """... and every path the schema has, its parameters filled: an id with alice's run (or a
    row that may not exist, which is a 404), a kind with a valid one."""
    values = {"id": str(run_id), "job_id": "1", "kind": "timing", "pk": "1"}
    paths = client.get("/api/schema/?format=json").json()["paths"]
    found = [
        re.sub(r"{(\w+)}", lambda m: values.get(m.group(1), "1"), path)
        for path in paths
        if not path.startswith("/api/schema")  # the schema itself answers OpenAPI, not JSON
    ]
    assert len(found) >= 25, found  # every resource of the API, not a handful
    return found


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
def test_options_on_every_route_describes_it_and_never_fails(alice_api, alice_run, debug):
    with override_settings(DEBUG=debug):
        for path in routes(alice_run.pk) + schema_routes(alice_api, alice_run.pk):
            response = alice_api.options(path)
            assert response.status_code in (200, 404), (path, response.status_code)
            assert response["Content-Type"].startswith("application/json"), path
            if response.status_code == 200:
                assert response.json()["name"], path  # DRF's metadata: the view's name
    described = alice_api.options("/api/scoring/").json()
    assert "reward_config" in described["actions"]["POST"]  # the request it takes


def test_every_documented_read_answers_without_a_server_error_in_debug_mode_too(
    alice_api, alice_run
):
    # Django's debug pages are HTML: a refusal or a missing row must still be the API's JSON
    with override_settings(DEBUG=True):
        for path in schema_routes(alice_api, alice_run.pk):
            response = alice_api.get(path)
            if response.status_code == 405:
                continue  # a write-only route (its OPTIONS is checked above)
            assert response.status_code < 500, (path, response.status_code)
            if response.status_code >= 400:
                assert response["Content-Type"] == "application/json", path
                assert response.json(), path


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
