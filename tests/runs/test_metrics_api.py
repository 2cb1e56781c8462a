"""The ingest and read API: validation, idempotency, all-or-nothing, non-finite values."""

from __future__ import annotations

import math

import pytest

from runs.models import MetricPoint, MetricSeries, Run

pytestmark = pytest.mark.django_db(transaction=True)


def post_points(api, run_id, points):
    return api.post(f"/api/runs/{run_id}/metrics/", {"points": points}, format="json")


def stored(run_id) -> dict[tuple[str, int], float | None]:
    return {
        (p.series.key, p.step): p.value
        for p in MetricPoint.objects.filter(series__run_id=run_id).select_related("series")
    }


def test_creating_a_run_returns_its_id_and_stores_the_config_verbatim(alice_api, alice):
    config = {"zeta": 1, "alpha": {"lr": 1e-6}, "group_size": 16}
    response = alice_api.post(
        "/api/runs/",
        {"name": "grpo-7b", "config": config, "model_name": "tiny", "tags": ["a", "b"]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    assert run.owner == alice and run.team.name == "red" and run.status == "queued"
    assert run.config.index('"zeta"') < run.config.index('"alpha"')  # key order kept
    assert run.tags == ["a", "b"]


def test_a_config_sent_as_text_is_stored_byte_for_byte(alice_api):
    text = "lr: 1e-6   # yaml, comments and all\ngroup_size: 16\n"
    response = alice_api.post("/api/runs/", {"name": "r", "config": text}, format="json")
    assert Run.objects.get(pk=response.json()["id"]).config == text


def test_it_stores_a_batch_and_serves_the_series_in_step_order(alice_api, alice_run):
    points = [{"step": s, "key": "rewards/mean", "value": s / 10} for s in (3, 1, 2)]
    points.append({"step": 1, "key": "losses/policy", "value": 0.5})
    response = post_points(alice_api, alice_run.pk, points)
    assert response.status_code == 200, response.json()
    assert response.json() == {"points": 4, "inserted": 4, "keys": 2, "last_step": 3}
    body = alice_api.get(f"/api/runs/{alice_run.pk}/metrics/?key=rewards/mean").json()
    assert list(body["series"]) == ["rewards/mean"]
    series = body["series"]["rewards/mean"]
    assert series["steps"] == [1, 2, 3] and series["values"] == [0.1, 0.2, 0.3]
    assert series["downsampled"] is False and series["total"] == 3
    alice_run.refresh_from_db()
    assert alice_run.last_step == 3 and alice_run.status == "running"


def test_re_sending_a_batch_stores_each_point_once_with_the_last_value(alice_api, alice_run):
    batch = [{"step": s, "key": "rewards/mean", "value": 1.0} for s in range(5)]
    post_points(alice_api, alice_run.pk, batch)
    again = [{"step": s, "key": "rewards/mean", "value": 2.0} for s in range(5)]
    response = post_points(alice_api, alice_run.pk, again)
    assert response.json()["inserted"] == 0
    assert stored(alice_run.pk) == {("rewards/mean", s): 2.0 for s in range(5)}
    assert MetricSeries.objects.get(run=alice_run).count == 5


def test_a_point_repeated_within_a_batch_keeps_its_last_value(alice_api, alice_run):
    batch = [
        {"step": 7, "key": "k", "value": 1.0},
        {"step": 7, "key": "k", "value": 3.0},
    ]
    assert post_points(alice_api, alice_run.pk, batch).json()["points"] == 1
    assert stored(alice_run.pk) == {("k", 7): 3.0}


@pytest.mark.parametrize(
    ("bad_point", "field"),
    [
        ({"step": "12", "key": "k", "value": 1}, "step"),
        ({"step": -1, "key": "k", "value": 1}, "step"),
        ({"step": 1.5, "key": "k", "value": 1}, "step"),
        ({"step": 1, "key": "", "value": 1}, "key"),
        ({"step": 1, "key": "k" * 201, "value": 1}, "key"),
        ({"step": 1, "key": "k", "value": "fast"}, "value"),
        ({"step": 1, "key": "k", "value": True}, "value"),
        ({"step": 1, "key": "k"}, "value"),
    ],
)
def test_a_batch_with_one_bad_point_is_rejected_whole_naming_index_and_field(
    alice_api, alice_run, bad_point, field
):
    good = [{"step": s, "key": "k", "value": 0.5} for s in range(3)]
    response = post_points(alice_api, alice_run.pk, [*good, bad_point, *good])
    assert response.status_code == 400
    assert response.json()["index"] == 3 and response.json()["field"] == field
    assert stored(alice_run.pk) == {}
    assert not MetricSeries.objects.filter(run=alice_run).exists()


def test_a_batch_over_the_size_limit_is_rejected(alice_api, alice_run, settings):
    settings.METRICS_MAX_BATCH_POINTS = 10
    points = [{"step": s, "key": "k", "value": 1} for s in range(11)]
    response = post_points(alice_api, alice_run.pk, points)
    assert response.status_code == 400 and response.json()["field"] == "points"
    assert "at most 10" in response.json()["error"]
    assert stored(alice_run.pk) == {}


def test_points_for_an_unknown_run_are_rejected(alice_api):
    response = post_points(alice_api, 999_999, [{"step": 1, "key": "k", "value": 1}])
    assert response.status_code == 404 and response.json()["field"] == "run"  # a missing resource


def test_nan_infinity_and_null_are_stored_and_served_as_such(alice_api, alice_run):
    batch = [
        {"step": 0, "key": "losses/policy", "value": "NaN"},
        {"step": 1, "key": "losses/policy", "value": "Infinity"},
        {"step": 2, "key": "losses/policy", "value": "-Infinity"},
        {"step": 3, "key": "losses/policy", "value": None},
        {"step": 4, "key": "losses/policy", "value": 0.25},
    ]
    assert post_points(alice_api, alice_run.pk, batch).status_code == 200
    values = stored(alice_run.pk)
    assert values[("losses/policy", 0)] is None and values[("losses/policy", 3)] is None
    assert values[("losses/policy", 1)] == math.inf and values[("losses/policy", 2)] == -math.inf
    series = alice_api.get(f"/api/runs/{alice_run.pk}/metrics/").json()["series"]["losses/policy"]
    assert series["values"] == ["NaN", "Infinity", "-Infinity", "NaN", 0.25]


def test_bare_nan_literals_from_python_json_are_accepted(alice_api, alice_run):
    body = (
        '{"points": [{"step": 0, "key": "k", "value": NaN},'
        ' {"step": 1, "key": "k", "value": Infinity}]}'
    )
    response = alice_api.generic(
        "POST", f"/api/runs/{alice_run.pk}/metrics/", body, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    assert stored(alice_run.pk) == {("k", 0): None, ("k", 1): math.inf}


def test_malformed_json_is_a_400(alice_api, alice_run):
    response = alice_api.generic(
        "POST", f"/api/runs/{alice_run.pk}/metrics/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert stored(alice_run.pk) == {}


def test_a_long_series_is_downsampled_keeping_its_spike(alice_api, alice_run):
    points = [{"step": s, "key": "k", "value": 1.0} for s in range(5000)]
    points[3217]["value"] = 1000.0
    points[4001]["value"] = -50.0
    assert post_points(alice_api, alice_run.pk, points).status_code == 200
    series = alice_api.get(f"/api/runs/{alice_run.pk}/metrics/?max_points=100").json()["series"][
        "k"
    ]
    assert series["downsampled"] is True and series["total"] == 5000
    assert len(series["steps"]) <= 100
    assert 1000.0 in series["values"] and -50.0 in series["values"]
    assert series["steps"][0] == 0 and series["steps"][-1] == 4999
    assert series["steps"] == sorted(series["steps"])


def test_max_points_must_be_a_number_in_range(alice_api, alice_run):
    response = alice_api.get(f"/api/runs/{alice_run.pk}/metrics/?max_points=lots")
    assert response.status_code == 400 and "max_points" in response.json()


def test_the_openapi_schema_documents_the_metrics_endpoint(alice_api):
    response = alice_api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert "/api/runs/{id}/metrics/" in response.json()["paths"]
