"""OpenRLHF's remote-reward protocol translated (scoring/protocols.py) and its endpoint's
refusals and credentials (POST /api/scoring/openrlhf/). The protocol run by OpenRLHF's own
code is tests/integrations/test_openrlhf_remote_reward.py."""

from __future__ import annotations

import base64

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from foundation.inputs import InputError
from scoring.models import ScoringGather, ScoringJob
from scoring.protocols import openrlhf_answer, openrlhf_samples

PROMPT = "<|im_start|>user\nSum the numbers.<|im_end|>\n<|im_start|>assistant\n"


def test_each_response_is_what_follows_its_prompt_in_the_query():
    body = {
        "query": [PROMPT + "```python\nprint(1)\n```<|im_end|>", PROMPT + "no"],
        "prompts": [PROMPT, PROMPT],
        "labels": ["sum", "sum"],
    }
    samples = openrlhf_samples(body)
    assert [s.completion for s in samples] == ["```python\nprint(1)\n```<|im_end|>", "no"]
    assert [s.problem for s in samples] == ["sum", "sum"]
    assert samples[0].group == samples[1].group  # one prompt: one group
    other = openrlhf_samples({"query": ["x: y"], "prompts": ["x: "], "labels": ["sum"]})[0]
    assert other.group != samples[0].group


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": [PROMPT + "a"], "prompts": ["elsewhere"], "labels": ["sum"]}, "query[0]"),
        ({"query": ["a", "b"], "prompts": ["a"], "labels": ["sum"]}, "labels"),
        ({"query": [], "prompts": [], "labels": []}, "query"),
        ({"query": ["a"], "prompts": ["a"], "labels": [3]}, "labels[0]"),
        ({"query": ["a"], "prompts": ["a"]}, "labels"),
        ({"query": ["a"], "prompts": ["a"], "labels": ["s"], "extra": 1}, "extra"),
        (["a"], "body"),
    ],
)
def test_a_request_openrlhf_would_not_send_is_refused_naming_the_field(body, field):
    with pytest.raises(InputError) as refused:
        openrlhf_samples(body)
    assert refused.value.field == field


def test_the_answer_is_one_value_per_query_with_scores_that_keep_only_mixed_groups():
    group = {"kind": "mixed", "size": 2, "job": 1}
    scored = [
        {"reward": 0.75, "correct": True, "group": group},
        {"reward": -1.0, "correct": False, "group": group},
    ]
    answer = openrlhf_answer(scored)
    assert answer["rewards"] == [0.75, -1.0]
    assert answer["scores"] == [1.0, 0.0]  # OpenRLHF's dynamic filtering reads these
    assert answer["extra_logs"] == {
        "codeopt/correct": [1.0, 0.0],
        "codeopt/group_mixed": [1.0, 1.0],
        "codeopt/group_all_negative": [0.0, 0.0],
        "codeopt/group_all_positive": [0.0, 0.0],
    }


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.django_db
def test_the_endpoint_takes_the_token_as_a_basic_password_and_names_a_refused_label(built, alice):
    token = Token.objects.create(user=alice).key
    url = "/api/scoring/openrlhf/?reward_config=binary-top50&group_size=8"
    body = {"query": [PROMPT + "x"], "prompts": [PROMPT], "labels": ["no-such-problem"]}
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic("codeopt", "wrong"))
    assert client.post(url, body, format="json").status_code == 401
    client.credentials(HTTP_AUTHORIZATION=basic("codeopt", token))
    answer = client.post(url, body, format="json")
    assert answer.status_code == 400 and "labels[0]" in answer.json(), answer.json()
    missing = client.post(url.replace("&group_size=8", ""), body, format="json")
    assert missing.status_code == 400 and "group_size" in missing.json()
    assert not ScoringGather.objects.exists() and not ScoringJob.objects.exists()
    # Basic is for this endpoint only: the rest of the API keeps to tokens and sessions
    assert client.get("/api/runs/").status_code in (401, 403)
