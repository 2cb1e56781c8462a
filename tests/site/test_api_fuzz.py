"""The API against its own OpenAPI schema (issue 16, item 6; issue 34, item 5): Schemathesis
generates requests from /api/schema/, valid and invalid, and checks every answer: never a 5xx,
a status and a body the schema documents, input the schema forbids refused (4xx). Once per
operation, and once as a state machine that follows the schema's links (a run created, then
read, changed and given metrics; a sandbox failure listed, then retried), so that answers about
objects that exist are checked too. Not checked for writes: that every input the schema allows
is accepted (Schemathesis' positive_data_acceptance): a run's team must be one of yours and a
reward configuration must exist, which no schema can say; such a refusal is a documented 400
naming the field. Bounded in examples per operation and mode (`CODEOPT_FUZZ_EXAMPLES`, default
30) and in scenarios and their steps (`CODEOPT_FUZZ_SCENARIOS`, default 400;
`CODEOPT_FUZZ_STEPS`, default 8) so that it fits the suite; seeded, so a failure repeats."""

from __future__ import annotations

import os
import re
from collections import defaultdict

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.utils import timezone
from hypothesis import HealthCheck, Phase, given, seed, settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from timing.models import TimingJob

pytestmark = pytest.mark.django_db

FUZZ_EXAMPLES = int(os.environ.get("CODEOPT_FUZZ_EXAMPLES", "30"))
FUZZ_SCENARIOS = int(os.environ.get("CODEOPT_FUZZ_SCENARIOS", "400"))
FUZZ_STEPS = int(os.environ.get("CODEOPT_FUZZ_STEPS", "8"))
FUZZ_ROUNDS = 8  # of the stateful run, the later ones half as long: until its links are reached


@pytest.fixture
def api_schema(db):
    # in process, as Django's test client does: a request must not close the test's
    # database connection (its transaction is rolled back at the end)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def auth_headers(user) -> dict[str, str]:
    return {"Authorization": f"Token {Token.objects.get_or_create(user=user)[0].key}"}


def writes(case) -> bool:
    return case.method.upper() in ("POST", "PATCH")


def mutable(operation) -> bool:
    definition = operation.definition.raw
    return bool(definition.get("parameters") or definition.get("requestBody"))


def link_targets(raw: dict) -> set[str]:
    """ "METHOD path" of every operation a link of the schema leads to: the links it declares
    (by operationId) and those Schemathesis infers from its parameters (by operationRef,
    "#/paths/~1api~1runs~1{id}~1/get")."""
    operations = [
        (method, path, operation)
        for path, methods in raw["paths"].items()
        for method, operation in methods.items()
        if isinstance(operation, dict) and "responses" in operation
    ]
    by_id = {op.get("operationId"): f"{method.upper()} {path}" for method, path, op in operations}

    def target(link: dict) -> str:
        if "operationId" in link:
            return by_id[link["operationId"]]
        *_, path, method = link["operationRef"].split("/")
        return f"{method.upper()} {path.replace('~1', '/').replace('~0', '~')}"

    return {
        target(link)
        for _, _, operation in operations
        for response in operation.get("responses", {}).values()
        for link in response.get("links", {}).values()
    }


def operations(schema):
    found = [result.ok() for result in schema.get_all_operations()]
    return [op for op in found if not op.path.startswith("/api/schema")]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_api_answers_as_its_schema_says(api_schema, alice, alice_run, mode):
    headers = auth_headers(alice)
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
            excluded = [positive_data_acceptance] if writes(case) else []
            case.call_and_validate(headers=headers, excluded_checks=excluded)

        if mode == GenerationMode.NEGATIVE and not mutable(operation):
            continue  # nothing to send wrong: no parameter, no body
        run()
        walked.append(operation.label)
    assert len(walked) >= (8 if mode == GenerationMode.POSITIVE else 6), walked


@pytest.fixture
def sandbox_failures(alice) -> list[TimingJob]:
    """Timing jobs of alice's that failed in the sandbox: what /api/sandbox-failures/ lists
    and its retry link queues again (a retried one is no longer listed)."""
    return [
        TimingJob.objects.create(
            owner=alice,
            package_dir="/packages/sum",
            source="print(sum(map(int, input().split())))",
            language="python",
            status=TimingJob.Status.FAILED,
            error="SandboxError: no verdict for program: exec: EAGAIN",
            finished_at=timezone.now(),
        )
        for _ in range(3)
    ]


def test_the_api_answers_as_its_schema_says_along_its_links(
    api_schema, alice, alice_run, sandbox_failures, enqueued
):
    headers = auth_headers(alice)
    by_link: defaultdict[str, list[int]] = defaultdict(list)  # target: statuses, via a link

    class Workflow(api_schema.exclude(path_regex="^/api/schema").as_state_machine()):
        def setup(self):
            # each scenario starts from the fixtures' rows: Hypothesis replays a scenario to
            # shrink it, and a link's values must be there again
            self.scenario = transaction.atomic()
            self.scenario.__enter__()

        def teardown(self):
            transaction.set_rollback(True)
            self.scenario.__exit__(None, None, None)

        def get_call_kwargs(self, case):
            return {"headers": headers}

        def step(self, input):
            output = super().step(input)
            if input.transition is not None and input.is_applied:
                by_link[input.case.operation.label].append(output.response.status_code)
            return output

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(
                response,
                additional_checks=additional_checks,
                excluded_checks=[positive_data_acceptance] if writes(case) else [],
                headers=headers,  # the token is ours, not generated (the auth checks ask)
                transport_kwargs=kwargs or None,
                recorder=self.recorder,
            )

    # The links are followed, and all but a metric batch answer 2xx at least once (a generated
    # batch seldom has only keys the server takes: see runs.api.KEY_PATTERN). Which links a
    # scenario reaches, and with what answer, depends on the statuses its steps got, and those
    # on the rows and ids the tests before it in this worker left: one seed in four missed
    # one (a retried job's GET, once in CI). So the exploration goes on, a seed per round, at
    # most FUZZ_ROUNDS rounds, until each is reached. A link the schema lost, or an operation
    # that refuses every valid request, never is, and fails below.
    must_reach = {
        "GET /api/runs/{id}/",
        "PATCH /api/runs/{id}/",
        "GET /api/runs/{id}/metrics/",
        "POST /api/runs/{id}/metrics/",
        "POST /api/sandbox-failures/{kind}/{job_id}/retry/",
        "GET /api/timing-jobs/{id}/",
        "GET /api/reward-configs/{id}/",
    }
    must_succeed = must_reach - {
        "POST /api/runs/{id}/metrics/",
        "GET /api/timing-jobs/{id}/",
        "GET /api/reward-configs/{id}/",
    }

    def succeeded() -> set[str]:
        return {target for target, statuses in by_link.items() if min(statuses) < 300}

    for round_ in range(FUZZ_ROUNDS):
        seed(round_)(Workflow).run(
            settings=settings(
                max_examples=FUZZ_SCENARIOS if round_ == 0 else FUZZ_SCENARIOS // 2,
                stateful_step_count=FUZZ_STEPS,
                phases=[Phase.generate],
                deadline=None,
                suppress_health_check=list(HealthCheck),
                database=None,
            )
        )
        if must_reach <= set(by_link) and must_succeed <= succeeded():
            break
    declared = link_targets(api_schema.raw_schema)
    assert set(by_link) <= declared, set(by_link) - declared  # only links the schema declares
    assert must_reach <= set(by_link), (round_, by_link)
    assert must_succeed <= succeeded(), (round_, by_link)


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


def test_the_schema_documents_what_the_stateful_run_found_missing(
    alice_api, alice_run, sandbox_failures, enqueued
):
    """A retry answered 202, and 409 once queued, where the schema said 200; a step above
    2**53 and a key with a control character or only spaces were refused, which the schema
    did not say. And the links it follows are in the schema, for any client."""
    schema = alice_api.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    retry = paths["/api/sandbox-failures/{kind}/{job_id}/retry/"]["post"]["responses"]
    assert {"202", "404", "409"} <= set(retry) and "200" not in retry
    url = f"/api/sandbox-failures/timing/{sandbox_failures[0].pk}/retry/"
    assert [alice_api.post(url).status_code for _ in range(2)] == [202, 409]

    point = schema["components"]["schemas"]["PointRequest"]["properties"]
    assert point["step"]["maximum"] == 2**53
    pattern = point["key"]["pattern"]
    refused = [key for key in ("rewards/mean", "lo\x01ss", "  ") if not re.search(pattern, key)]
    assert refused == ["lo\x01ss", "  "]
    metrics = f"/api/runs/{alice_run.pk}/metrics/"
    for field, step, key in (("step", 2**53 + 1, "loss"), ("key", 1, "lo\x01ss"), ("key", 1, "  ")):
        batch = {"points": [{"step": step, "key": key, "value": 1}]}
        answer = alice_api.post(metrics, batch, format="json")
        assert (answer.status_code, answer.json()["field"]) == (400, field), key

    links = paths["/api/runs/"]["post"]["responses"]["201"]["links"]
    assert {name: link["operationId"] for name, link in links.items()} == {
        "GetRun": "api_runs_retrieve",
        "UpdateRun": "api_runs_partial_update",
        "GetMetrics": "api_runs_metrics_retrieve",
        "PostMetrics": "api_runs_metrics_create",
    }
    assert links["GetRun"]["parameters"] == {"id": "$response.body#/id"}
