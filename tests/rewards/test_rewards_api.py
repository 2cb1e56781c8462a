"""Reward configurations and simulations through the API (issue 35, item 1): saved, changed
and recommended as the Rewards page's forms do, with the same checks (only its team's members
or staff change a configuration: 403 for others; its fields stay while a run uses it); a
simulation queued, then listed as the page's JSON lists it and read with the curves and
verdicts the page plots; a refused field is named."""

from __future__ import annotations

import pytest

from rewards import reads, services
from rewards.models import RewardConfig, Simulation
from rewards.simulator import DECILES
from runs.models import Run
from tests.conftest import token_client
from tests.rewards.test_reward_simulation import spread

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_configuration_is_saved_changed_and_recommended_only_by_its_team(alice, bob, alice_run):
    api, other = token_client(alice), token_client(bob)
    answer = api.post(
        "/api/reward-configs/",
        {"name": "mine-top40", "fields": {"speed_bar": 40, "combination": "graded"},
         "description": "a graded bar"},
        format="json",
    )  # fmt: skip
    assert answer.status_code == 201, answer.json()
    saved = answer.json()
    assert (saved["team"], saved["may_change"], saved["run_count"]) == ("red", True, 0)
    assert saved["fields"]["speed_bar"] == 40 and saved["created_by"] == "alice"
    row = RewardConfig.objects.get(name="mine-top40")
    assert saved["design"] == reads.design_summary(row.fields)  # as the page's table
    again = api.post("/api/reward-configs/", {"name": "mine-top40"}, format="json")
    assert again.status_code == 400 and "PATCH" in again.json()["name"][0]

    # shared with every team, as on the page; changed only by its own
    (seen,) = other.get("/api/reward-configs/").json()["results"]
    assert (seen["id"], seen["may_change"]) == (row.pk, False)
    url = f"/api/reward-configs/{row.pk}/"
    changed = other.patch(url, {"fields": {"speed_bar": 10}}, format="json")
    assert changed.status_code == 403 and "team 'red'" in changed.json()["detail"]
    recommend = other.post(f"{url}recommend/", {"recommended": True}, format="json")
    assert recommend.status_code == 403
    row.refresh_from_db()
    assert row.fields["speed_bar"] == 40 and not row.recommended

    changed = api.patch(url, {"fields": {"speed_bar": 50}}, format="json")
    assert changed.status_code == 200, changed.json()
    assert changed.json()["fields"]["speed_bar"] == 50
    assert changed.json()["description"] == "a graded bar"  # none sent: kept
    Run.objects.filter(pk=alice_run.pk).update(reward_config=row)
    used = api.patch(url, {"fields": {"speed_bar": 60}}, format="json")
    assert used.status_code == 400 and "used by 1 training run" in used.json()["fields"][0]
    assert api.get(url).json()["run_count"] == 1

    recommended = api.post(f"{url}recommend/", {"recommended": True}, format="json").json()
    assert recommended["recommended"] is True and recommended["recommended_by"] == "alice"
    bad = api.post(f"{url}recommend/", {"recommended": "yes"}, format="json")
    assert bad.status_code == 400 and "recommended" in bad.json()


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"name": "x", "fields": {"speed_bar": 130}}, "fields", "speed_bar: must be in [0, 100]"),
        ({"name": "x", "fields": {"speed": 30}}, "fields", "speed: unknown field"),
        ({"name": "x", "fields": {"name": "y"}}, "fields", "give the name in the name box"),
        ({"name": "x", "fields": "speed_bar: 30"}, "fields", ""),
        ({"name": ""}, "name", ""),
        ({"name": "x", "team": "blue"}, "team", "not a member"),
        ({"name": "x", "colour": "red"}, "colour", "unknown field"),
    ],
)
def test_a_refused_configuration_names_its_field_and_saves_nothing(alice, body, field, says):
    answer = token_client(alice).post("/api/reward-configs/", body, format="json")
    assert answer.status_code == 400 and field in answer.json(), answer.json()
    assert says in answer.json()[field][0]
    assert not RewardConfig.objects.exists()


def test_a_simulation_queued_through_the_api_reads_as_the_page_shows_it(
    alice, bob, client, enqueued
):
    for index in range(4):
        spread(f"p{index}")
    services.do_load_configs()
    api = token_client(alice)
    answer = api.post(
        "/api/reward-simulations/",
        {"configs": ["binary-top30", "control-bar100"], "noise_cvs": [0, 0.1],
         "group_size": 8, "problems": ["p0", "p1", "p2"]},
        format="json",
    )  # fmt: skip
    assert answer.status_code == 201, answer.json()
    queued = answer.json()
    assert (queued["status"], queued["configs"], queued["noise_cvs"]) == ("queued", 2, [0, 0.1])
    assert enqueued == [("rewards.run_simulation", [queued["id"]], None)]
    simulation = services.do_run_simulation(queued["id"])
    assert simulation.status == "done" and simulation.started_by == "alice"

    client.force_login(alice)
    page_rows = client.get("/rewards/simulations.json").json()["simulations"]
    assert token_client(bob).get("/api/reward-simulations/").json()["results"] == page_rows
    detail = api.get(f"/api/reward-simulations/{simulation.pk}/").json()
    assert {k: detail[k] for k in page_rows[0]} == page_rows[0]
    assert detail["problem_slugs"] == ["p0", "p1", "p2"] and detail["problems"] == 3
    results = {r["name"]: r for r in detail["results"]}
    assert list(results) == ["binary-top30", "control-bar100"]
    # the verdicts the page draws beside each configuration
    assert results["binary-top30"]["verdict"] == "worth training"
    assert results["control-bar100"]["verdict"].startswith("discard: ")
    top30 = results["binary-top30"]["by_noise"]
    assert [level["noise_cv"] for level in top30] == [0, 0.1]
    assert len(top30[0]["curve"]) == DECILES and top30[0]["monotonicity"] > 0
    assert top30 == simulation.results[0]["by_noise"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"configs": []}, "configs"),
        ({"configs": ["nope"]}, "configs"),
        ({"configs": ["binary-top30"], "noise_cvs": [9]}, "noise_cvs"),
        ({"configs": ["binary-top30"], "noise_cvs": [0.1] * 9}, "noise_cvs"),
        ({"configs": ["binary-top30"], "group_size": "8"}, "group_size"),
        ({"configs": ["binary-top30"], "group_size": 0}, "group_size"),
        ({"configs": ["binary-top30"], "problems": ["nope"]}, "problems"),
        ({"configs": ["binary-top30"], "split": "dev"}, "split"),
        ({"configs": ["binary-top30"], "rank_against": "luck"}, "rank_against"),
    ],
)
def test_a_refused_simulation_names_its_field_and_queues_nothing(alice, enqueued, body, field):
    services.do_load_configs()
    answer = token_client(alice).post("/api/reward-simulations/", body, format="json")
    assert answer.status_code == 400 and field in answer.json(), answer.json()
    assert not Simulation.objects.exists() and enqueued == []


def test_fields_are_read_as_sent_through_the_forms_check(alice):
    # the form's check reads YAML: a number written 1e-05 stays a number, not the text
    # YAML 1.1 would read in JSON's spelling of it, and a character past U+FFFF stays one
    fields = {"time_limit_s": 1e-05, "speed_bar": 30}
    answer = token_client(alice).post(
        "/api/reward-configs/", {"name": "tight", "fields": fields}, format="json"
    )
    assert answer.status_code == 201, answer.json()
    assert RewardConfig.objects.get(name="tight").fields["time_limit_s"] == 1e-05
    odd = token_client(alice).post(
        "/api/reward-configs/", {"name": "odd", "fields": {"fire\U0001f525": 1}}, format="json"
    )
    assert odd.status_code == 400 and "fire\U0001f525: unknown field" in odd.json()["fields"][0]
