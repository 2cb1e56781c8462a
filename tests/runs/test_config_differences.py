"""The compare page's "what changed" (issue 35, item 3): `runs.reads.config_differences`
keeps only the config keys whose values differ among the compared runs, nested keys dotted, a
key one run lacks shown as None (the page's "—"), the reward configuration and model
included; and the page renders it as the #config-differences table."""

from __future__ import annotations

import pytest

from foundation.tenancy import Team
from rewards.models import RewardConfig
from runs import services
from runs.models import Run
from runs.reads import config_differences


def run(pk: int, config: str, model_name: str = "") -> Run:
    """An unsaved run (config_differences makes no queries): its stored config text."""
    return Run(pk=pk, name=f"run-{pk}", config=config, model_name=model_name)


def rows(runs) -> dict[str, list]:
    return {row["key"]: row["values"] for row in config_differences(runs)}


def test_only_the_keys_whose_values_differ_are_kept_one_value_per_run_in_order():
    runs = [
        run(1, '{"learning_rate": 0.0003, "group_size": 8, "seed": 1}'),
        run(2, '{"learning_rate": 0.0003, "group_size": 16, "seed": 1}'),
        run(3, '{"learning_rate": 1e-05, "group_size": 8, "seed": 1}'),
    ]
    assert rows(runs) == {
        "group_size": ["8", "16", "8"],
        "learning_rate": ["0.0003", "0.0003", "1e-05"],
    }
    # the run list's preferred columns first, then the other keys by name
    assert [row["key"] for row in config_differences(runs)] == ["group_size", "learning_rate"]


def test_nested_keys_are_dotted_and_a_key_one_run_lacks_is_none():
    runs = [
        run(1, '{"optimizer": {"lr": 0.1, "betas": [0.9, 0.99]}, "kl": {"beta": 0.0}}'),
        run(2, '{"optimizer": {"lr": 0.2, "betas": [0.9, 0.99]}, "kl": {"beta": 0.0}}'),
        run(3, '{"optimizer": {"lr": 0.1, "betas": [0.9, 0.999]}, "note": "try"}'),
    ]
    assert rows(runs) == {
        "kl.beta": ["0.0", "0.0", None],
        "note": [None, None, "try"],
        "optimizer.betas": ["[0.9, 0.99]", "[0.9, 0.99]", "[0.9, 0.999]"],
        "optimizer.lr": ["0.1", "0.2", "0.1"],
    }


def test_equal_numbers_are_the_same_but_true_null_and_text_are_not_numbers():
    same = [run(1, '{"lr": 1, "on": true}'), run(2, '{"lr": 1.0, "on": true}')]
    assert config_differences(same) == []
    differ = [run(1, '{"flag": true, "v": null, "s": "1"}'), run(2, '{"flag": 1, "v": 0, "s": 1}')]
    assert rows(differ) == {"flag": ["true", "1"], "s": ['"1"', "1"], "v": ["null", "0"]}


def test_runs_with_the_same_config_or_a_config_that_is_not_json_have_no_differences():
    assert config_differences([run(1, '{"a": 1}'), run(2, '{"a": 1}')]) == []
    assert config_differences([run(1, '{"a": 1}')]) == []
    assert rows([run(1, "lr=0.1"), run(2, '{"a": 1}')]) == {"a": [None, "1"]}


def test_the_model_and_reward_configuration_named_apart_from_the_config_count():
    runs = [
        run(1, '{"learning_rate": 0.1}', model_name="tiny"),
        run(2, '{"learning_rate": 0.1}', model_name="small"),
    ]
    assert rows(runs) == {"model": ["tiny", "small"]}
    # a config that names its model wins over the run's model field
    said = [run(1, '{"model": "m"}', model_name="tiny"), run(2, '{"model": "m"}')]
    assert config_differences(said) == []


@pytest.mark.django_db
def test_the_compare_page_shows_the_differences_as_a_table_and_says_when_there_are_none(
    client, alice
):
    team = Team.objects.get(name="red")
    top50 = RewardConfig.objects.create(name="binary-top50-test")
    graded = RewardConfig.objects.create(name="graded-test")
    a = services.do_create_run(
        owner=alice, team=team, name="a", config={"lr": 0.1, "seed": 1}, reward_config=top50
    )
    b = services.do_create_run(
        owner=alice, team=team, name="b", config={"lr": 0.1, "seed": 2}, reward_config=graded
    )
    same = services.do_create_run(owner=alice, team=team, name="c", config={"lr": 0.1, "seed": 1})
    same.reward_config = top50
    same.save()
    client.force_login(alice)

    page = client.get(f"/runs/compare/?ids={a.pk},{b.pk}").content.decode()
    start = page.index('<table class="runs" id="config-differences">')
    table = page[start : page.index("</table>", start)]
    assert f">#{a.pk} a</th>" in table and f">#{b.pk} b</th>" in table
    assert 'data-key="reward_config"' in table and 'data-key="seed"' in table
    assert 'data-key="lr"' not in table
    assert ">binary-top50-test<" in table and ">graded-test<" in table

    page = client.get(f"/runs/compare/?ids={a.pk},{same.pk}").content.decode()
    assert '<p class="hint" id="config-differences">No config differences' in page
