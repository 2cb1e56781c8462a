"""OpenRLHF's remote reward against codeopt's native endpoint (issue 34, item 2): OpenRLHF
0.11.2's own single-turn executor (tests/integrations/openrlhf_remote_reward.py, in the
trainers' virtualenv) rolls out 8 prompts x 8 samples at once, so 64 single-sample requests
reach a live daphne together; a real timing worker scores them."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from rest_framework.authtoken.models import Token

from execution.samples import FAST
from problems.exports import PromptRow, shaped
from scoring.models import ScoringGather, ScoringJob
from tests.integrations.trainers import run_in_trainers_venv, tokenizer_folder

pytestmark = pytest.mark.django_db(transaction=True)

PROMPTS, SAMPLES = 8, 8


def responses(prompt: int) -> list[str]:
    """A chat model's responses (it opens its own block): prompt k has k % 3 correct ones,
    so groups of every kind come back."""
    correct = [f"```python\n{FAST}```"] * (prompt % 3)
    wrong = ["```python\nprint(0)\n```", "I cannot solve this."]
    return (correct + wrong * SAMPLES)[:SAMPLES]


def test_openrlhfs_own_rollout_gets_rewards_for_64_concurrent_samples_with_groups_intact(
    built, alice, asgi_server, celery_worker_process, tmp_path
):
    token = Token.objects.create(user=alice).key
    rows = []
    for prompt in range(PROMPTS):  # eight prompts of the built problem, worded apart
        row = PromptRow("sum", f"Sum the numbers (variant {prompt}).", "train")
        rows.append({**shaped(row, "openrlhf"), "responses": responses(prompt)})
    (tmp_path / "rows.json").write_text(json.dumps(rows))
    host = asgi_server.removeprefix("http://")
    url = (
        f"http://codeopt:{token}@{host}/api/scoring/openrlhf/"
        f"?reward_config=binary-top50&group_size={SAMPLES}&window_s=60"
    )
    result = run_in_trainers_venv(
        "openrlhf_remote_reward.py",
        ["--rows", str(tmp_path / "rows.json"), "--tokenizer", tokenizer_folder(), "--url", url],
    )
    samples = result["samples"]
    assert len(samples) == PROMPTS * SAMPLES  # none lost
    assert all(s["reward"] is not None for s in samples), "OpenRLHF kept no reward for some"

    # groups intact: one scoring job per prompt, holding exactly that prompt's 8 responses
    jobs = list(ScoringJob.objects.filter(owner=alice))
    assert len(jobs) == PROMPTS
    sent = sorted(sorted(job.request["groups"][0]["completions"]) for job in jobs)
    by_prompt = defaultdict(list)
    for sample in samples:
        by_prompt[sample["prompt"]].append(sample)
    assert len(by_prompt) == PROMPTS
    assert not ScoringGather.objects.filter(open=True).exists()
    assert all(len(job.request["groups"][0]["completions"]) == SAMPLES for job in jobs)
    assert len(sent) == PROMPTS

    for prompt, got in by_prompt.items():
        correct = [s for s in got if s["response"].startswith("```python\nimport sys")]
        assert len(correct) == prompt % 3
        # each kept value as OpenRLHF stores it: one reward per (single-sample) request
        assert sorted(s["reward"][0] for s in got) == sorted(
            [1.0] * len(correct) + [-1.0] * (SAMPLES - len(correct))
        )
        assert [s["scores"][0] for s in correct] == [1.0] * len(correct)
        kind = "mixed" if correct else "all_negative"
        assert {s["extra_logs"][f"codeopt/group_{kind}"][0] for s in got} == {1.0}
        assert {s["extra_logs"]["codeopt/correct"][0] for s in correct} <= {1.0}
