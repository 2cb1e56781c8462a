"""Dataset builds through the API (issue 35, item 1): queued with the Dataset page form's
fields and checks (problems.pipeline.PipelineConfig), listed as the page's JSON lists them
(shared by every team, as on the page), read with the funnel and each problem's outcome; a
refused field is named."""

from __future__ import annotations

import pytest

from problems.models import DatasetBuild, ProblemBuild
from tests.conftest import token_client

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_build_is_queued_listed_as_the_page_lists_it_and_read_with_its_outcomes(
    built, alice, bob, client, enqueued
):
    done = DatasetBuild.objects.get()  # the session's build of "sum"
    api = token_client(alice)
    answer = api.post(
        "/api/dataset-builds/",
        {"problems": ["sum"], "repeats": 2, "slow_target_s": 0.2, "test_fraction": 0.5},
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    queued = answer.json()
    assert (queued["status"], queued["problems"], queued["started_by"]) == ("queued", 1, "alice")
    assert [(task, args) for task, args, *_ in enqueued] == [
        ("problems.run_dataset_build", [queued["id"]])
    ]
    detail = api.get(f"/api/dataset-builds/{queued['id']}/").json()
    assert detail["config"]["repeats"] == 2 and detail["config"]["slow_target_s"] == 0.2
    assert detail["config"]["min_ratio"] == 2.0  # not sent: the form's default
    assert detail["problem_slugs"] == ["sum"] and detail["outcomes"] == []

    client.force_login(alice)
    page_rows = client.get("/dataset/builds.json").json()["builds"]
    assert [row["id"] for row in page_rows] == [queued["id"], done.pk]
    assert token_client(bob).get("/api/dataset-builds/").json()["results"] == page_rows

    finished = api.get(f"/api/dataset-builds/{done.pk}/").json()
    assert {k: finished[k] for k in page_rows[1]} == page_rows[1]
    assert finished["status"] == "done" and finished["progress"] == 1.0
    assert ["time-discriminative", 1] in finished["funnel"]
    (outcome,) = finished["outcomes"]
    stored = ProblemBuild.objects.get(build=done)
    assert (outcome["problem"], outcome["kept"], outcome["stage_reached"]) == ("sum", True, 5)
    assert outcome["discrimination"] == stored.report["discrimination"]["ratio"] > 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"repeats": 1}, "repeats"),
        ({"repeats": 2.5}, "repeats"),
        ({"repeats": "3"}, "repeats"),
        ({"slow_target_s": 0}, "slow_target_s"),
        ({"min_ratio": 0.5}, "min_ratio"),
        ({"test_fraction": True}, "test_fraction"),
        ({"problems": ["nope"]}, "problems"),
        ({"problems": "sum"}, "problems"),
        ({"max_references": 3}, "max_references"),  # not a field of the page's form
    ],
)
def test_a_refused_build_names_its_field_and_queues_nothing(built, alice, enqueued, body, field):
    before = DatasetBuild.objects.count()
    answer = token_client(alice).post("/api/dataset-builds/", body, format="json")
    assert answer.status_code == 400 and field in answer.json(), answer.json()
    assert DatasetBuild.objects.count() == before and enqueued == []
