"""Stored reward configurations: checked input naming the field, files loaded all or none,
a configuration a run trains with cannot change, runs reference them, recommendation."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from rewards import config_files, engine, services
from rewards.models import RewardConfig
from runs.models import Run


@pytest.mark.parametrize(
    "data, message",
    [
        ({"name": "x", "speed": 30}, "speed: unknown field"),
        ({"name": "x", "speed_bar": "fast"}, "speed_bar: must be a number, not 'fast'"),
        ({"name": "x", "speed_bar": 130}, "speed_bar: must be in [0, 100]"),
        ({"name": "x", "max_input_chars": 2.5}, "max_input_chars: must be a whole number"),
        ({"name": "x", "gate_on_correctness": "yes"}, "gate_on_correctness: must be true or"),
        ({"name": "x", "time_limit_s": 0}, "time_limit_s: must be > 0"),
        ({"name": "x", "combination": "sum"}, "combination: 'sum' is not one of"),
        ({"speed_bar": 30}, "name: a non-empty text is required"),
    ],
)
def test_a_bad_field_is_named(data, message):
    with pytest.raises(ValueError) as error:
        engine.RewardConfig.from_dict(data)
    assert str(error.value).startswith(message)


def test_a_config_round_trips_through_its_dict():
    config = engine.RewardConfig("c", limit_percentile=30, speed_bar=None, combination="graded")
    assert engine.RewardConfig.from_dict(config.as_dict()) == config


@pytest.mark.django_db
def test_the_built_in_set_loads_once_and_reloading_updates_by_name():
    call_command("load_reward_configs")
    names = set(RewardConfig.objects.values_list("name", flat=True))
    assert {"binary-top30", "graded-top30", "weighted-half", "alternating-top30"} <= names
    assert {"limit-human-p30", "binary-top30-fastest-half-tests", "control-bar100"} <= names
    call_command("load_reward_configs")
    assert RewardConfig.objects.count() == len(names)
    top30 = RewardConfig.objects.get(name="binary-top30")
    assert top30.engine_config() == engine.RewardConfig("binary-top30", speed_bar=30)


@pytest.mark.django_db
def test_a_file_with_one_bad_entry_stores_nothing(tmp_path):
    path = tmp_path / "configs.yaml"
    path.write_text("- name: good\n  speed_bar: 50\n- name: bad\n  speed_bar: 500\n")
    with pytest.raises(Exception, match=r"configs\[1\] \(bad\): speed_bar: must be in"):
        call_command("load_reward_configs", str(path))
    assert not RewardConfig.objects.exists()
    path.write_text("- name: twice\n- name: twice\n")
    with pytest.raises(ValueError, match=r"configs\[1\] \(twice\): name: 'twice' appears twice"):
        config_files.read_config_file(path)


@pytest.mark.django_db
def test_a_config_a_run_trains_with_keeps_its_fields(alice_run):
    row = services.do_save_config(engine.RewardConfig("mine", speed_bar=30))
    Run.objects.filter(pk=alice_run.pk).update(reward_config=row)
    services.do_save_config(engine.RewardConfig("mine", speed_bar=30), description="same fields")
    with pytest.raises(ValueError, match="name: 'mine' is used by 1 training run"):
        services.do_save_config(engine.RewardConfig("mine", speed_bar=50))
    row.refresh_from_db()
    assert row.fields["speed_bar"] == 30 and row.description == "same fields"


@pytest.mark.django_db
def test_a_run_created_through_the_api_references_a_config_by_name(alice_api, client, alice):
    services.do_save_config(engine.RewardConfig("binary-top30", speed_bar=30))
    response = alice_api.post(
        "/api/runs/", {"name": "r", "reward_config": "binary-top30"}, format="json"
    )
    assert response.status_code == 201, response.content
    run = Run.objects.get(pk=response.json()["id"])
    assert run.reward_config.name == "binary-top30"
    changed = alice_api.patch(f"/api/runs/{run.pk}/", {"reward_config": None}, format="json")
    assert changed.status_code == 400
    assert "cannot change" in changed.json()["reward_config"][0]
    unknown = alice_api.post("/api/runs/", {"name": "r", "reward_config": "nope"}, format="json")
    assert unknown.status_code == 400 and "reward_config" in unknown.json()
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/")
    assert page.status_code == 200 and b"binary-top30</a>" in page.content


@pytest.mark.django_db
def test_the_page_saves_a_config_and_names_a_bad_field(client, alice):
    client.force_login(alice)
    response = client.post(
        "/rewards/",
        {"form": "config", "name": "p50", "description": "d", "fields": "speed_bar: 50\n"},
    )
    assert response.status_code == 302
    assert RewardConfig.objects.get(name="p50").fields["speed_bar"] == 50
    bad = client.post("/rewards/", {"form": "config", "name": "p", "fields": "speed_bar: [1"})
    assert bad.status_code == 400 and b"fields: not YAML or JSON" in bad.content
    bad = client.post(
        "/rewards/", {"form": "config", "name": "p", "fields": "limit_percentile: -3"}
    )
    assert b"limit_percentile: must be in [0, 100]" in bad.content
    assert not RewardConfig.objects.filter(name="p").exists()


@pytest.mark.django_db
def test_recommending_a_config_records_who_and_withdrawing_clears_it(client, alice):
    from foundation.tenancy import Team

    red = Team.objects.get(name="red")
    row = services.do_save_config(engine.RewardConfig("binary-top30"), team=red)
    client.force_login(alice)
    client.post(f"/rewards/configs/{row.pk}/recommend/", {"recommended": "1"})
    row.refresh_from_db()
    assert row.recommended and row.recommended_by == "alice" and row.recommended_at
    page = client.get("/rewards/")
    assert b"recommended</span>" in page.content
    client.post(f"/rewards/configs/{row.pk}/recommend/", {"recommended": "0"})
    row.refresh_from_db()
    assert not row.recommended and row.recommended_at is None
    assert client.get(f"/rewards/configs/{row.pk}/recommend/").status_code == 405
