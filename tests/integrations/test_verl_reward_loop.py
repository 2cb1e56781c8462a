"""verl's own reward loop scores a batch through codeopt with groups intact (issue 34, item
1): verl 0.9.1's RewardLoopManager, two Ray reward workers and its `naive` reward manager
awaiting our compute_score once per sample (tests/integrations/verl_reward_loop.py, in the
trainers' virtualenv), against a live daphne and a real timing worker; then verl's own file
tracking backend followed into a codeopt run."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from rest_framework.authtoken.models import Token

from execution.samples import FAST
from integrations import verl as verl_integration
from runs.reads import read_metrics
from scoring.models import ScoringJob
from tests.integrations.trainers import run_in_trainers_venv, tokenizer_folder

pytestmark = pytest.mark.django_db(transaction=True)

GROUP = 4
OK = f"```python\n{FAST}```"
ROLLOUTS = {  # three prompts (verl uids) of the built problem, four responses each
    "uid-a": [OK, OK, "```python\nprint(0)\n```", "no program"],
    "uid-b": ["```python\nprint(0)\n```"] * 4,
    "uid-c": [OK, "no program", "no program", "no program"],
}


def test_verls_reward_loop_scores_each_prompts_samples_as_one_group(
    built, alice, alice_run, asgi_server, celery_worker_process, tmp_path
):
    token = Token.objects.create(user=alice).key
    rollouts = [
        {"uid": uid, "problem": "sum", "index": number, "response": text}
        for number, (uid, texts) in enumerate(ROLLOUTS.items())
        for text in texts
    ]
    (tmp_path / "rollouts.json").write_text(json.dumps(rollouts))
    metrics_file = tmp_path / "verl-metrics.jsonl"
    result = run_in_trainers_venv(
        "verl_reward_loop.py",
        [
            *("--rollouts", str(tmp_path / "rollouts.json"), "--tokenizer", tokenizer_folder()),
            *("--server", asgi_server, "--token", token, "--reward-config", "binary-top50"),
            *("--group-size", str(GROUP), "--workers", "2"),
            *("--metrics-file", str(metrics_file)),
        ],
        env={"VERL_FILE_LOGGER_PATH": str(metrics_file)},
    )
    samples = result["samples"]
    assert len(samples) == len(rollouts)

    # one scoring job per uid, holding exactly that uid's responses (split over two workers)
    jobs = list(ScoringJob.objects.filter(owner=alice))
    assert len(jobs) == len(ROLLOUTS)
    scored = sorted(sorted(job.request["groups"][0]["completions"]) for job in jobs)
    assert scored == sorted(sorted(texts) for texts in ROLLOUTS.values())
    by_uid = defaultdict(list)
    for sample in samples:
        by_uid[sample["uid"]].append(sample)
    for uid, got in by_uid.items():
        assert {s["group_size"] for s in got} == {GROUP}
        for sample in got:  # verl's token-level reward holds the service's reward
            correct = sample["response"] == OK
            assert sample["score"] == (1.0 if correct else -1.0), (uid, sample)
            assert sample["correct"] == float(correct)
        mixed = {s["group_mixed"] for s in got}
        assert mixed == ({0.0} if uid == "uid-b" else {1.0})

    # verl's file backend, loaded by name, followed into a run
    run = alice_run
    tracking = verl_integration.CodeoptTracking(asgi_server, token, run.pk)
    try:
        sent = verl_integration.follow(metrics_file, tracking, idle_s=0)
    finally:
        tracking.finish()
    assert sent == 1
    series = read_metrics(run, ["verl/critic/score/mean"], 10)["verl/critic/score/mean"]
    mean = sum(s["score"] for s in samples) / len(samples)
    assert series["steps"] == [1] and series["values"][0] == pytest.approx(mean)
