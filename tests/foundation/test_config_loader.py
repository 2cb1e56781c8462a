"""One loader for every dataclass config (foundation.typed.load_config): strict types, the bad
field named, nothing truncated, every field documented."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import math

import pytest

from foundation.typed import field_kinds, load_config
from problems.pipeline.model import PipelineConfig
from rewards.engine import RewardConfig
from training.config import TrainConfig

CONFIGS = [RewardConfig, TrainConfig, PipelineConfig]
NAMED = {RewardConfig: {"name": "r"}}  # required fields


def a_number_field(cls) -> tuple[str, type]:
    kinds, _ = field_kinds(cls)
    return next((n, k) for n, k in kinds.items() if k in (int, float))


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_every_config_refuses_an_unknown_field_a_bool_number_and_nan_naming_the_field(cls):
    base = NAMED.get(cls, {})
    with pytest.raises(ValueError, match=r"^colour: unknown field"):
        load_config(cls, {**base, "colour": 1})
    name, _ = a_number_field(cls)
    with pytest.raises(ValueError, match=rf"^{name}: must be a number, not True"):
        load_config(cls, {**base, name: True})
    with pytest.raises(ValueError, match=rf"^{name}: must be finite"):
        load_config(cls, {**base, name: math.inf})


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_no_whole_number_field_is_truncated(cls):
    kinds, _ = field_kinds(cls)
    for name, kind in kinds.items():
        if kind is int:
            with pytest.raises(ValueError, match=rf"^{name}: must be a whole number, not 2.7"):
                load_config(cls, {**NAMED.get(cls, {}), name: 2.7})
            with pytest.raises(ValueError, match=rf"^{name}: must be a whole number, not 2.7"):
                load_config(cls, {**NAMED.get(cls, {}), name: "2.7"}, text=True)


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_a_config_round_trips_through_its_stored_form(cls):
    config = load_config(cls, dict(NAMED.get(cls, {})))
    assert load_config(cls, dataclasses.asdict(config)) == config


def test_a_required_field_left_out_is_named():
    with pytest.raises(ValueError, match="^name: required"):
        load_config(RewardConfig, {"speed_bar": 30})


def test_form_text_is_parsed_by_the_fields_kind():
    text = {"group_size": "4", "normalize_std": "on", "learning_rate": ""}
    config = load_config(TrainConfig, text, text=True)
    assert config.group_size == 4 and config.normalize_std is True
    assert config.learning_rate == TrainConfig().learning_rate  # empty text: the default
    # the Training form, though, names an empty field instead of taking its default
    form = {k: v for k, v in TrainConfig().form_values().items() if not isinstance(v, bool)}
    assert TrainConfig.from_form(form) == TrainConfig()
    with pytest.raises(ValueError, match="^learning_rate: required"):
        TrainConfig.from_form({**form, "learning_rate": ""})
    with pytest.raises(ValueError, match="^group_size: 'many' is not a whole number"):
        TrainConfig.from_form({**form, "group_size": "many"})


@pytest.mark.parametrize("cls", CONFIGS, ids=lambda c: c.__name__)
def test_every_field_is_documented(cls):
    """Each field is followed by its docstring (or, for a self-evident one, a comment on
    its line): the form and the docs read them."""
    source = inspect.getsource(cls)
    lines = source.splitlines()
    body = ast.parse(source).body[0].body
    undocumented = []
    for index, node in enumerate(body):
        if not isinstance(node, ast.AnnAssign):
            continue
        following = body[index + 1] if index + 1 < len(body) else None
        documented = (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        )
        commented = "#" in lines[node.lineno - 1]
        if not (documented or commented):
            undocumented.append(node.target.id)
    assert undocumented == [], f"{cls.__name__}: fields without a docstring: {undocumented}"
