"""The Training form (issue 17, item 4): every TrainConfig field is on it, the advanced ones
folded, numbers bounded as the server bounds them, and nothing required may be left empty:
an empty Model is an error naming it, never a default run."""

from __future__ import annotations

import dataclasses
import re

import pytest

from foundation.typed import bounds_of
from runs.models import Run
from tests.training.test_training_pages import FORM
from training.config import OPTIONAL_ON_FORMS, TrainConfig

pytestmark = pytest.mark.django_db(transaction=True)

ADVANCED = {
    "clip_epsilon", "inner_epochs", "kl_beta", "token_budget", "max_staleness_steps",
    "token_weighted_baseline", "normalize_std", "tie_band", "max_new_tokens", "temperature",
    "baseline_program", "trainable_layers", "warm_start_steps", "warm_start_learning_rate",
}  # fmt: skip


def form_of(page: str) -> str:
    return re.search(
        r'<form method="post" class="job-form" id="train-form">.*?</form>', page, re.S
    )[0]


def tag_named(form: str, name: str) -> str:
    found = re.search(rf'<(input|select)[^>]*name="{name}"[^>]*>', form)
    assert found, f"{name}: not on the form"
    return found[0]


def test_every_config_field_is_on_the_form_bounded_as_the_server_bounds_it(built, client, alice):
    client.force_login(alice)
    form = form_of(client.get("/training/").content.decode())
    advanced = re.search(r'<details class="advanced".*?</details>', form, re.S)[0]
    bounds = bounds_of(TrainConfig)
    for field in dataclasses.fields(TrainConfig):
        tag = tag_named(form, field.name)
        assert (field.name in ADVANCED) == (f'name="{field.name}"' in advanced), field.name
        if field.name in bounds:
            low, high = bounds[field.name]
            assert 'type="number"' in tag and f'min="{low}"' in tag, tag
            assert f'max="{high}"' in tag, tag
        if field.type not in OPTIONAL_ON_FORMS:
            assert " required" in tag, f"{field.name}: not required"
        else:  # may be left empty: a checkbox, the problems (empty: all)
            assert " required" not in tag, f"{field.name}: required"
    # the time budget, checkpoints and the objective's knobs (once missing) carry defaults
    for name in ("max_minutes", "checkpoint_every", "clip_epsilon", "kl_beta", "inner_epochs"):
        assert f'value="{getattr(TrainConfig(), name)}"' in tag_named(form, name)


def test_the_model_is_chosen_not_assumed(built, client, alice):
    client.force_login(alice)
    model = tag_named(form_of(client.get("/training/").content.decode()), "model")
    assert 'value=""' in model and 'placeholder="tiny"' in model and " required" in model
    assert 'list="model-choices"' in model
    page = client.get("/training/").content.decode()
    assert '<datalist id="model-choices"><option value="tiny">' in page


@pytest.mark.parametrize(
    "emptied, message",
    [
        (
            "model",
            "model: required (&#x27;smollm2-135m-instruct&#x27;, a pretrained instruct model "
            "installed with the project, &#x27;tiny&#x27;, the built-in small model, or the "
            "folder of a local transformers checkpoint under the model roots)",
        ),
        ("steps", "steps: required (the default is 100)"),
        ("clip_epsilon", "clip_epsilon: required (the default is 0.2)"),
    ],
)
def test_an_empty_required_field_is_named_and_nothing_starts(
    built, client, alice, enqueued, emptied, message
):
    client.force_login(alice)
    response = client.post("/training/", {**FORM, emptied: "  "})
    assert response.status_code == 400
    assert f'<p class="error" id="train-error">{message}</p>' in response.content.decode()
    assert not Run.objects.exists() and enqueued == []


def test_the_advanced_fields_reach_the_run_config(built, client, alice, enqueued):
    client.force_login(alice)
    changed = {
        "clip_epsilon": "0.1", "kl_beta": "0.05", "inner_epochs": "2", "max_minutes": "1.5",
        "checkpoint_every": "7", "tie_band": "3", "temperature": "0.7", "max_problems": "1",
        "warm_start_learning_rate": "0.001",
    }  # fmt: skip
    assert client.post("/training/", {**FORM, **changed}).status_code == 302
    config = Run.objects.get().training.config
    assert {k: config[k] for k in changed} == {
        "clip_epsilon": 0.1, "kl_beta": 0.05, "inner_epochs": 2, "max_minutes": 1.5,
        "checkpoint_every": 7, "tie_band": 3.0, "temperature": 0.7, "max_problems": 1,
        "warm_start_learning_rate": 0.001,
    }  # fmt: skip
