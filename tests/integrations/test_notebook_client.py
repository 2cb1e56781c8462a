"""The notebook client (issue 35, item 2: integrations/notebook.py) against a live daphne and
a real worker: runs with their configs and last values, a run's history, the config keys that
differ, a step's samples, evaluations with pτ intervals, a comparison, and an evaluation
started, waited for and read back, all as DataFrames."""

from __future__ import annotations

import math

import pytest
from rest_framework.authtoken.models import Token

from execution.samples import SLOW
from foundation.tenancy import Team
from integrations.notebook import Codeopt, ServerRejected
from problems.models import Problem
from runs import services as run_services
from runs.client import MetricsClient
from scoring.services import external_training
from tests.evaluations.test_evaluations import evaluate_upload, lines
from training.models import RolloutSample

pytestmark = pytest.mark.django_db(transaction=True)


def make_run(alice, name: str, config: dict, rewards: list[float], server: str, token: str):
    run = run_services.do_create_run(
        owner=alice, team=Team.objects.get(name="red"), name=name, config=config
    )
    metrics = MetricsClient(server, token, run.pk)
    for step, reward in enumerate(rewards, start=1):
        metrics.log(step, {"rewards/mean": reward, "groups/mixed": 0.5})
    metrics.close()
    return run


def test_runs_history_configs_and_samples_come_back_as_dataframes(built, alice, asgi_server):
    token = Token.objects.create(user=alice).key
    co = Codeopt(asgi_server, token)
    base = {"learning_rate": 1e-5, "group_size": 8, "loss": {"kl": 0.0}}
    first = make_run(alice, "lr-1e-5", base, [0.1, 0.3, 0.2], asgi_server, token)
    second = make_run(
        alice, "lr-2e-5", {**base, "learning_rate": 2e-5}, [0.2, 0.4], asgi_server, token
    )

    runs = co.runs().set_index("id")
    assert list(runs.index) == [second.pk, first.pk]  # newest first
    assert runs.loc[first.pk, "config.learning_rate"] == 1e-5  # an object, not JSON text
    assert runs.loc[first.pk, "config.loss.kl"] == 0.0
    assert runs.loc[first.pk, "summary.rewards/mean"] == pytest.approx(0.2)  # its last value
    assert runs.loc[second.pk, "summary.rewards/mean"] == pytest.approx(0.4)

    history = co.history(first.pk, ["rewards/mean"])
    assert list(history.index) == [1, 2, 3] and list(history.columns) == ["rewards/mean"]
    assert history["rewards/mean"].tolist() == pytest.approx([0.1, 0.3, 0.2])

    differs = co.compare_configs([first.pk, second.pk])
    assert list(differs.index) == ["learning_rate"]  # only the keys that differ

    training = external_training(first.pk)
    problem = Problem.objects.get(slug="sum")
    for step in (1, 2):
        RolloutSample.objects.create(
            training=training, step=step, problem=problem, group=0, index=0,
            completion="x", program="x", reward=float(step), verdict="OK", correct=True,
            speed_percentile=50.0, policy_version=step, tokens=3, truncated=False,
        )  # fmt: skip
    latest = co.samples(first.pk)
    assert latest["step"].tolist() == [2] and latest["problem"].tolist() == ["sum"]
    assert co.samples(first.pk, step=1)["reward"].tolist() == [1.0]
    with pytest.raises(ServerRejected, match="run"):
        co.samples(0)


def test_an_evaluation_is_started_waited_for_and_compared_from_the_client(
    built, alice, asgi_server, celery_worker_process
):
    co = Codeopt(asgi_server, Token.objects.create(user=alice).key)
    slow = evaluate_upload(
        alice, lines(*[{"problem": "sum", "program": SLOW}] * 2), complexity=False
    )
    said = []
    started = co.evaluate(model="tiny", split="all", n=2, complexity=False, max_new_tokens=16)
    detail = co.wait(started, timeout=600, poll_s=0.5, progress=said.append)
    assert detail["status"] == "done" and said and said[-1].startswith(f"evaluation {started}")

    table = co.evaluations().set_index("id")
    assert set(table.index) == {started, slow.pk}
    assert table.loc[slow.pk, "p100"] == 1.0  # both SLOW programs are correct
    assert {"p100_low", "p100_high", "p50"} <= set(table.columns)

    compared = co.compare([slow.pk, started])
    assert list(compared.index) == [slow.pk, started]
    assert math.isnan(compared.loc[slow.pk, f"win_vs_{slow.pk}"])  # not against itself
    assert 0.0 <= compared.loc[slow.pk, f"win_vs_{started}"] <= 1.0
    with pytest.raises(ServerRejected, match="n"):
        co.evaluate(model="tiny", n=0)
