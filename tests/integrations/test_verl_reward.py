"""verl's reward interface against codeopt (issue 18, item 5), called as verl's reward
managers call it (verl is not installed: its call is the protocol boundary), against a live
server and a real timing worker: examples/verl_reward.py."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from rest_framework.authtoken.models import Token

from examples import verl_reward
from problems.models import Problem
from scoring.models import ScoringJob

pytestmark = pytest.mark.django_db(transaction=True)


def test_verls_reward_calls_score_through_the_service(
    built, alice, asgi_server, celery_worker_process, monkeypatch, tmp_path
):
    Problem.objects.filter(slug="sum").update(split="train")
    monkeypatch.setenv("CODEOPT_SERVER", asgi_server)
    monkeypatch.setenv("CODEOPT_TOKEN", Token.objects.create(user=alice).key)
    monkeypatch.setenv("CODEOPT_REWARD_CONFIG", "binary-top50")
    out = tmp_path / "train.parquet"
    rewards = verl_reward.main(["--split", "train", "--out", str(out)])
    assert rewards == [1.0, -1.0, -1.0]  # a fast program; no program, in a batch and alone
    table = pq.read_table(out)
    assert set(table.column_names) >= {"data_source", "prompt", "reward_model"}
    assert [info["index"] for info in table.column("extra_info").to_pylist()] == [0]
    batch, single = ScoringJob.objects.order_by("pk")
    assert [len(g["programs"]) for g in batch.request["groups"]] == [2]  # one group per prompt
    assert batch.worker and single.result["groups"][0][0]["verdict"] == "FORMAT"
