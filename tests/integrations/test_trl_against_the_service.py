"""TRL's GRPOTrainer against codeopt as its reward service (issue 18, item 4): a live daphne
and a real Celery timing worker; examples/trl_grpo.py trains a tiny model 2 steps; the
rewards come from our sandbox and the run gets TRL's loss and the service's groups/* series.
"""

from __future__ import annotations

import asyncio

import pytest
from rest_framework.authtoken.models import Token
from trl.trainer.utils import is_async_callable

from examples import trl_grpo
from execution.samples import FAST
from integrations.trl import AsyncCodeoptReward, CodeoptReward
from problems.models import Problem
from runs.models import Run
from scoring.client import ScoringClient, ServiceUnavailable
from scoring.models import ScoringJob
from training.models import RolloutSample

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:`gradient_checkpointing` is deprecated"),
]


def test_trl_trains_two_steps_with_rewards_from_the_sandbox(
    built, alice, asgi_server, celery_worker_process
):
    Problem.objects.filter(slug="sum").update(split="train")
    token = Token.objects.create(user=alice).key

    # the reward function as TRL calls it, on programs that reach the sandbox
    reward = CodeoptReward(asgi_server, token, "binary-top50")
    completions = [FAST + "```", "print(0)\n```", "no program"]
    extra, metrics = {}, {}
    got = reward(
        ["p"] * 3,
        completions,
        problem=["sum"] * 3,
        log_extra=extra.__setitem__,  # TRL's _log_completion_extra(column, values)
        log_metric=metrics.__setitem__,  # TRL's _log_metric(name, value)
    )
    verdicts = [s["verdict"] for s in reward.last_answer["groups"][0]["samples"]]
    assert verdicts == ["OK", "WRONG_ANSWER", "FORMAT"]
    assert got == [1.0, -1.0, -1.0]  # binary-top50: a failed program gets its failure reward
    assert ScoringJob.objects.get().worker  # scored by the timing worker
    # TRL's completions table: a value per completion, in TRL's order
    assert extra["codeopt_verdict"] == verdicts
    assert extra["codeopt_group"] == ["mixed"] * 3
    percentiles = extra["codeopt_percentile"]
    assert percentiles[0] is not None and percentiles[1:] == [None, None]  # only the correct
    assert metrics["codeopt/groups_mixed"] == 1.0 and metrics["codeopt/groups_all_negative"] == 0
    # the same reward as an async function, which TRL awaits
    assert is_async_callable(AsyncCodeoptReward(asgi_server, token, "binary-top50"))
    twice = AsyncCodeoptReward(asgi_server, token, "binary-top50")
    assert asyncio.run(twice(["p"] * 2, completions[1:], problem=["sum"] * 2)) == [-1.0, -1.0]

    run_id = trl_grpo.main(
        ["--server", asgi_server, "--token", token, "--steps", "2", "--reward-config",
         "binary-top50", "--generations", "2", "--max-completion-length", "8",
         "--async-reward"]
    )  # fmt: skip
    run = Run.objects.get(pk=run_id)
    assert run.status == "finished" and run.reward_config.name == "binary-top50"
    jobs = ScoringJob.objects.filter(training__run=run).order_by("step")
    assert [(j.step, j.status) for j in jobs] == [(1, "done"), (2, "done")]
    assert RolloutSample.objects.filter(training__run=run).count() == 4
    from runs.reads import read_metrics

    def steps(key):
        series = read_metrics(run, [key], 100).get(key)
        return series and series["steps"]

    # groups/* written by the service, trl/* by TRL through the callback: the same steps
    assert steps("groups/all_negative") == [1, 2]
    assert steps("trl/loss") == [1, 2]
    stale = read_metrics(run, ["staleness/policy_steps"], 100)["staleness/policy_steps"]
    assert stale["steps"] == [1, 2] and stale["values"] == [0, 0]  # generated on-policy
    assert steps("trl/rewards/codeopt/mean")
    # what the reward logged through TRL's log_metric, in TRL's logs at TRL's steps
    assert steps("trl/codeopt/groups_all_negative") == [1, 2]
    assert steps("trl/codeopt/groups_mixed") == [1, 2]


def test_a_server_that_is_down_is_named(tmp_path):
    client = ScoringClient("http://127.0.0.1:9", "t", retries=2)
    with pytest.raises(ServiceUnavailable, match="127.0.0.1:9 did not answer"):
        client.score([("sum", [FAST])], "binary-top50")


def test_a_batch_that_failed_in_the_sandbox_gets_none_never_a_made_up_reward(
    built, alice, asgi_server
):
    """No worker here: the job the reward queues is failed as a sandbox failure that
    survived the service's retries leaves it; TRL gets None per completion (it leaves them
    out) and the count in its logs, at once rather than after the client's hour of waiting."""

    class FailedInTheSandbox(ScoringClient):
        def submit(self, groups, reward_config, **fields):
            job_id = super().submit(groups, reward_config, **fields)
            error = "SandboxError: sum: still failing in the sandbox after 3 scorings"
            ScoringJob.objects.filter(pk=job_id).update(status="failed", error=error)
            return job_id

    token = Token.objects.create(user=alice).key
    client = FailedInTheSandbox(asgi_server, token, timeout=600)
    reward = CodeoptReward(asgi_server, token, "binary-top50", client=client)
    metrics = {}
    with pytest.warns(UserWarning, match="failed in the sandbox.*2 completions get no reward"):
        got = reward(
            ["p"] * 2, [FAST + "```", "x"], problem=["sum"] * 2, log_metric=metrics.__setitem__
        )
    assert got == [None, None] and metrics == {"codeopt/unmeasured": 2.0}
    assert ScoringJob.objects.get().status == "failed"  # still there, to retry from Timing
