"""The API against its own OpenAPI schema (issue 16, item 6): Schemathesis generates requests
from /api/schema/, valid and invalid, and checks every answer: never a 5xx, a status and a body
the schema documents, input the schema forbids refused (4xx). Not checked for writes: that every
input the schema allows is accepted (Schemathesis' positive_data_acceptance): a run's team must be
one of yours and a reward configuration must exist, which no schema can say; such a refusal
is a documented 400 naming the field. Bounded in examples per operation and mode
(`CODEOPT_FUZZ_EXAMPLES`, default 30) so that it fits the suite; derandomized, so a failure
repeats."""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

pytestmark = pytest.mark.django_db

FUZZ_EXAMPLES = int(os.environ.get("CODEOPT_FUZZ_EXAMPLES", "30"))


@pytest.fixture
def api_schema(db):
    # in process, as Django's test client does: a request must not close the test's
    # database connection (its transaction is rolled back at the end)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def mutable(operation) -> bool:
    definition = operation.definition.raw
    return bool(definition.get("parameters") or definition.get("requestBody"))


def operations(schema):
    found = [result.ok() for result in schema.get_all_operations()]
    return [op for op in found if not op.path.startswith("/api/schema")]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_api_answers_as_its_schema_says(api_schema, alice, alice_run, mode):
    token = Token.objects.get_or_create(user=alice)[0].key
    headers = {"Authorization": f"Token {token}"}
    walked = []
    for operation in operations(api_schema):
        # valid requests name alice's run; invalid ones may name anything
        positive = mode == GenerationMode.POSITIVE
        fixed = {"id": alice_run.pk} if "{id}" in operation.path and positive else None

        @given(case=operation.as_strategy(mode, path_parameters=fixed))
        @settings(
            max_examples=FUZZ_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def run(case):
            # a read's valid input is always accepted; a write's may break a rule (above)
            writes = case.method.upper() in ("POST", "PATCH")
            excluded = [positive_data_acceptance] if writes else []
            case.call_and_validate(headers=headers, excluded_checks=excluded)

        if mode == GenerationMode.NEGATIVE and not mutable(operation):
            continue  # nothing to send wrong: no parameter, no body
        run()
        walked.append(operation.label)
    assert len(walked) >= (8 if mode == GenerationMode.POSITIVE else 6), walked


def test_the_schema_documents_what_the_fuzzer_found_missing(alice_api, alice_run):
    """The findings of before, one by one: undocumented 400/404, max_points without its
    range, an empty batch and blank tags refused though allowed, offset=null accepted."""
    schema = alice_api.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    metrics = paths["/api/runs/{id}/metrics/"]
    assert {"400", "401", "404"} <= set(metrics["post"]["responses"])
    assert {"400", "401", "404"} <= set(paths["/api/runs/{id}/"]["patch"]["responses"])
    (max_points,) = [p for p in metrics["get"]["parameters"] if p["name"] == "max_points"]
    assert (max_points["schema"]["minimum"], max_points["schema"]["maximum"]) == (10, 1_000_000)
    components = schema["components"]["schemas"]
    assert components["BatchRequest"]["properties"]["points"]["minItems"] == 1
    assert components["RunRequest"]["properties"]["tags"]["items"]["minLength"] == 1
    url = f"/api/runs/{alice_run.pk}/metrics/"
    assert alice_api.post(url, {"points": []}, format="json").status_code == 400
    for bad in ("null", "-1", "x", "1.5"):
        answer = alice_api.get("/api/runs/", {"offset": bad})
        assert answer.status_code == 400 and "offset" in answer.json(), bad
    assert alice_api.get("/api/runs/", {"limit": "1001"}).status_code == 400
    assert alice_api.get("/api/runs/", {"status": "nope"}).status_code == 400
    answer = alice_api.post("/api/runs/", {"name": "x", "tags": [3.5]}, format="json")
    assert answer.status_code == 400 and "tags" in answer.json()
    assert alice_api.get("/api/runs/abc/").json() == {"detail": "Not found."}
