"""Judge batches through the API (issue 35, item 1): started as the Judges page's form does,
listed and read as the page's JSON shows them, their pairs reviewed and labelled, and the
labels file exported; another team's batch and pairs are 404; a refused field is named."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from judges import services
from judges.models import JudgeBatch, Judgment
from tests.conftest import token_client
from tests.judges.test_judges import PAIRS, batch_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_batch_started_through_the_api_is_queued_and_reads_as_the_page_lists_it(
    alice, bob, client, enqueued
):
    api = token_client(alice)
    answer = api.post(
        "/api/judge-batches/",
        {"pairs": PAIRS, "pairs_file": "p.jsonl", "judge": ["analyzer"], "measure": False},
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    started = answer.json()
    assert (started["status"], started["pairs"], started["team"]) == ("queued", 4, "red")
    assert started["name"] == "pairs p.jsonl" and started["measure"] is False
    assert [e["line"] for e in started["input_errors"]] == [5, 6, 7]  # the file's bad lines
    assert enqueued == [("judges.judge", [started["id"]], None)]
    assert services.do_run_batch(started["id"]) == "done"

    client.force_login(alice)
    (page_row,) = client.get("/judges/data.json").json()["batches"]
    (api_row,) = api.get("/api/judge-batches/").json()["results"]
    for key, shown in page_row.items():
        if key == "created_at":
            assert datetime.fromisoformat(api_row[key]) == datetime.fromisoformat(shown)
        else:
            assert api_row[key] == shown, key
    assert (api_row["status"], api_row["progress_done"]) == ("done", 2)  # two pairs judged

    detail = api.get(f"/api/judge-batches/{started['id']}/").json()
    analyzer = detail["breakdown"]["judges"]["analyzer"]
    assert analyzer["categories"]["math_shortcut"] == 2 and analyzer["judged"] == 2
    assert detail["breakdown"]["kinds"]["within_noise"] == 1
    assert detail["truth"] == [] and detail["agreement"] == []  # no ground truth, one judge

    other = token_client(bob)
    assert other.get("/api/judge-batches/").json()["results"] == []
    for path in ("", "pairs/", "export/"):
        assert other.get(f"/api/judge-batches/{started['id']}/{path}").status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"judge": ["analyzer"]}, "evaluation"),
        ({"evaluation": 999}, "evaluation"),
        ({"pairs": "{broken\n"}, "pairs"),
        ({"pairs": PAIRS, "baseline": "start"}, "baseline"),
        ({"pairs": PAIRS, "judge": ["llm"]}, "judge"),
        ({"pairs": PAIRS, "judge": []}, "judge"),
        ({"pairs": PAIRS, "tie_band": 2}, "tie_band"),
        ({"pairs": PAIRS, "measure": "yes"}, "measure"),
        ({"pairs": PAIRS, "team": "blue"}, "team"),
        ({"pairs": PAIRS, "colour": "red"}, "colour"),
        ({"pairs": 3}, "pairs"),
    ],
)
def test_a_refused_batch_names_its_field_and_queues_nothing(
    alice, bob, enqueued, monkeypatch, body, field
):
    monkeypatch.delenv("JUDGE_LLM_BASE_URL", raising=False)  # no LLM endpoint here
    answer = token_client(alice).post("/api/judge-batches/", body, format="json")
    assert answer.status_code == 400 and field in answer.json(), answer.json()
    assert not JudgeBatch.objects.exists() and enqueued == []


def test_pairs_are_reviewed_labelled_and_their_labels_exported_as_the_page_does(
    alice, bob, client, enqueued
):
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    faster = batch.pairs.get(kind="faster")
    api = token_client(alice)
    pairs = api.get(f"/api/judge-batches/{batch.pk}/pairs/").json()
    assert pairs["count"] == 4
    assert [p["kind"] for p in pairs["results"]] == [
        "faster", "within_noise", "slower", "unmeasured",
    ]  # fmt: skip
    first = pairs["results"][0]
    assert (first["pair"], first["category"], first["human"]) == (faster.pk, "math_shortcut", None)
    assert first["baseline"] == faster.baseline and first["speedup"] == pytest.approx(25.0)
    assert first["evidence"] is None and first["evidence_note"].startswith("no problem")
    assert first["judges"]["analyzer"]["category"] == "math_shortcut"
    shown = api.get(f"/api/judge-batches/{batch.pk}/pairs/?category=math_shortcut").json()
    assert [p["pair"] for p in shown["results"]] == [
        p.pk for p in batch.pairs.filter(kind__in=["faster", "unmeasured"]).order_by("pk")
    ]
    refused = api.get(f"/api/judge-batches/{batch.pk}/pairs/?category=magic")
    assert refused.status_code == 400 and "category" in refused.json()

    label = f"/api/judge-pairs/{faster.pk}/label/"
    assert token_client(bob).post(label, {"category": "io"}, format="json").status_code == 404
    assert not Judgment.objects.filter(judge="human").exists()
    for bad in ({"category": "fast"}, {"category": "unclear"}, {}):
        answer = api.post(label, bad, format="json")
        assert answer.status_code == 400 and "category" in answer.json(), bad
    answer = api.post(label, {"category": "io", "rationale": "only the reads"}, format="json")
    assert answer.status_code == 200, answer.json()
    labelled = answer.json()
    assert (labelled["human"], labelled["category"]) == ("io", "io")  # the person's is shown
    assert labelled["judges"]["human"]["by"] == "alice"
    humans = api.get(f"/api/judge-batches/{batch.pk}/pairs/?judge=human").json()["results"]
    assert [p["pair"] for p in humans] == [faster.pk]
    agreement = api.get(f"/api/judge-batches/{batch.pk}/").json()["agreement"]
    assert [(a["first"], a["second"], a["agreement"]) for a in agreement] == [
        ("analyzer", "human", 0.0)
    ]

    exported = api.get(f"/api/judge-batches/{batch.pk}/export/")
    assert exported.status_code == 200
    assert exported["Content-Type"] == "application/x-ndjson"
    rows = [json.loads(line) for line in exported.content.decode().splitlines()]
    assert [(r["problem"], r["category"], r["labelled_by"], r["note"]) for r in rows] == [
        ("triangle", "io", "alice", "only the reads")
    ]
    client.force_login(alice)
    assert exported.content == client.get(f"/judges/{batch.pk}/labels.jsonl").content
    asked = api.get(f"/api/judge-batches/{batch.pk}/export/", HTTP_ACCEPT="application/x-ndjson")
    assert asked.status_code == 200 and asked.content == exported.content

    # the file judged again: the label is its ground truth, and the analyzer's accuracy on it
    again = api.post(
        "/api/judge-batches/",
        {"pairs": exported.content.decode(), "judge": ["analyzer"], "measure": False},
        format="json",
    ).json()
    assert services.do_run_batch(again["id"]) == "done"
    (truth,) = api.get(f"/api/judge-batches/{again['id']}/").json()["truth"]
    assert (truth["judge"], truth["pairs"], truth["correct"], truth["accuracy"]) == (
        "analyzer", 1, 0, 0.0,
    )  # fmt: skip
    pair = api.get(f"/api/judge-batches/{again['id']}/pairs/").json()["results"][0]
    assert pair["truth"] == "io" and pair["category"] == "math_shortcut"


def test_a_pair_timed_out_on_one_side_answers_null_not_infinity(alice, enqueued):
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    batch.pairs.filter(kind="faster").update(baseline_s=float("inf"))
    answer = token_client(alice).get(f"/api/judge-batches/{batch.pk}/pairs/")
    # strict JSON (a browser's parser): Infinity would not parse
    first = json.loads(answer.content, parse_constant=lambda name: pytest.fail(name))
    assert first["results"][0]["baseline_s"] is None
    assert first["results"][0]["speedup"] is None
