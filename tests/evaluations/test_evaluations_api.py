"""Evaluations through the API (issue 35, items 1 and 4): start one as the page's form does,
list and read it with pτ and intervals, compare, cancel one still queued; another team's are
404; a refused field is named."""

from __future__ import annotations

import pytest

from evaluations.models import Evaluation
from tests.conftest import token_client
from tests.evaluations.test_evaluations import slow_and_mixed

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_evaluation_started_through_the_api_takes_its_own_lane_and_can_be_cancelled(
    built, alice, bob, enqueued
):
    api = token_client(alice)
    answer = api.post(
        "/api/evaluations/",
        {"source": "model", "model": "tiny", "split": "all", "n": 2, "taus": [100, 20]},
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    started = answer.json()
    assert started["status"] == "queued" and started["n"] == 2
    assert 20.0 in started["taus"]  # beside the defaults, as the form does
    # generating: the `eval` lane, never behind the training runs of `gpu`
    assert enqueued == [("evaluations.evaluate", [started["id"]], "eval")]
    assert [e["id"] for e in api.get("/api/evaluations/").json()["results"]] == [started["id"]]
    assert token_client(bob).post(f"/api/evaluations/{started['id']}/cancel/").status_code == 404

    cancelled = api.post(f"/api/evaluations/{started['id']}/cancel/")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "failed"
    assert cancelled.json()["error"] == "cancelled by alice before it started"
    again = api.post(f"/api/evaluations/{started['id']}/cancel/")
    assert again.status_code == 409 and "only a queued one" in again.json()["detail"]
    assert api.get("/api/evaluations/?status=queued").json()["results"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"source": "model", "n": 0}, "n"),
        ({"source": "telepathy"}, "source"),
        ({"source": "run", "run": 999}, "run"),
        ({"source": "model", "problems": ["nope"]}, "problems"),
        ({"source": "model", "problems": 1.5}, "problems"),  # a 500 the fuzzer found
        ({"source": "model", "problems": [3]}, "problems"),
        ({"source": "model", "colour": "red"}, "colour"),
        ({"source": "completions"}, "completions"),
        ({"source": "model", "taus": True}, "taus"),  # 500s schemathesis' coverage found
        ({"source": "model", "name": [None, None]}, "name"),
        ({"source": "model", "model": {"x": 1}}, "model"),
        ({"source": ["model"]}, "source"),
    ],
)
def test_a_refused_evaluation_names_its_field_and_queues_nothing(
    built, alice, enqueued, body, field
):
    answer = token_client(alice).post("/api/evaluations/", body, format="json")
    assert answer.status_code == 400 and field in answer.json(), answer.json()
    assert not Evaluation.objects.exists() and enqueued == []


def test_a_done_evaluation_reads_with_its_p_tau_intervals_and_compares(built, alice, bob):
    slow, mixed = slow_and_mixed(alice)
    api = token_client(alice)
    detail = api.get(f"/api/evaluations/{mixed.pk}/").json()
    assert detail["status"] == "done" and detail["n_problems"] == 1
    assert detail["p_tau"]["100"]["value"] == 0.5  # one of the two programs is correct
    assert set(detail["p_tau"]["100"]) == {"value", "low", "high"}
    assert detail["progress"]["done"] == detail["progress"]["total"] > 0
    compared = api.get(f"/api/evaluations/compare/?ids={mixed.pk},{slow.pk}").json()
    assert [row["evaluation"] for row in compared["rows"]] == [mixed.pk, slow.pk]
    assert compared["win_rates"]["ids"] == [mixed.pk, slow.pk]
    assert api.get("/api/evaluations/compare/?ids=").status_code == 400
    assert token_client(bob).get(f"/api/evaluations/{mixed.pk}/").status_code == 404
    hidden = token_client(bob).get(f"/api/evaluations/compare/?ids={mixed.pk}")
    assert hidden.status_code == 404 and "you can see" in hidden.json()["detail"]
