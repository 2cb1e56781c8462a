"""The notebook client (issue 35, item 2: integrations/notebook.py) against a live daphne and
a real worker: runs with their configs and last values, a run's history, the config keys that
differ, a step's samples, evaluations with pτ intervals, a comparison, and an evaluation
started, waited for and read back, all as DataFrames; a training run started, stopped and
resumed by a real worker, and the Timing page's jobs; a judge batch's pairs reviewed and
labelled, reward configurations, simulations and dataset builds."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from rest_framework.authtoken.models import Token

from execution.samples import SLOW
from foundation.tenancy import Team
from integrations.notebook import Codeopt, ServerRejected
from judges.models import JudgeBatch
from problems.models import Problem
from rewards import services as reward_services
from runs import services as run_services
from runs.client import MetricsClient
from runs.models import Run
from scoring.services import external_training
from tests.conftest import wait_for_status
from tests.evaluations.test_evaluations import evaluate_upload, lines
from tests.judges.test_judges import PAIRS, batch_of
from tests.training.test_training_runs import SMALL
from timing.models import TimingJob
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


def test_a_run_is_trained_stopped_resumed_and_timing_jobs_listed_from_the_client(
    built, alice, asgi_server, celery_worker_process
):
    co = Codeopt(asgi_server, Token.objects.create(user=alice).key)
    started = co.train({**SMALL, "model": "tiny", "steps": 2}, name="from-a-notebook")
    assert (started["name"], started["team"], started["steps"]) == ("from-a-notebook", "red", 2)
    assert co.stop(started["id"])["stop_requested"] is True
    run = Run.objects.get(pk=started["id"])
    wait_for_status(celery_worker_process, run, ("stopped", "failed", "finished"), 300, "the stop")
    stopped = co.training(run.pk)
    assert (stopped["status"], stopped["step"], stopped["checkpoints"]) == ("stopped", 1, [0, 1])

    assert co.resume(run.pk)["status"] == "queued"
    wait_for_status(celery_worker_process, run, ("stopped", "failed", "finished"), 300, "the end")
    finished = co.training(run.pk)
    assert (finished["status"], finished["step"], finished["attempts"]) == ("finished", 2, 2)
    with pytest.raises(ServerRejected, match="it has finished"):
        co.resume(run.pk)
    with pytest.raises(ServerRejected, match="config.learning_rate"):
        co.train({**SMALL, "model": "tiny", "learning_rate": -1})

    job = TimingJob.objects.create(
        owner=alice, package_dir="/packages/sum", source="print(1)", language="python"
    )
    jobs = co.timing_jobs()
    assert jobs["id"].tolist() == [str(job.pk)]
    assert jobs.loc[0, "status"] == "queued" and pd.isna(jobs.loc[0, "queue_wait_s"])


def test_judge_pairs_reward_configs_simulations_and_builds_come_back_as_dataframes(
    built, alice, asgi_server
):
    co = Codeopt(asgi_server, Token.objects.create(user=alice).key)
    batch = batch_of(alice, {"judge": "analyzer"}, ("p.jsonl", PAIRS))
    pairs = co.judge_pairs(batch.pk)
    assert pairs["kind"].tolist() == ["faster", "within_noise", "slower", "unmeasured"]
    first = int(pairs.loc[0, "pair"])
    assert (pairs.loc[0, "category"], pairs.loc[0, "analyzer_category"]) == (
        "math_shortcut", "math_shortcut",
    )  # fmt: skip
    assert pairs["human"].isna().all()
    assert co.label_pair(first, "io", "only the reads")["human"] == "io"
    labelled = co.judge_pairs(batch.pk, judge="human")
    assert labelled["pair"].tolist() == [first] and labelled.loc[0, "human_category"] == "io"
    with pytest.raises(ServerRejected, match="category"):
        co.label_pair(first, "fast")
    started = co.judge_batch(
        pairs=[{"problem": "triangle", "baseline": "print(1)", "optimized": "print(2)"}],
        judge=["analyzer"],
    )
    assert JudgeBatch.objects.get(pk=started).pairs.count() == 1

    configs = co.reward_configs().set_index("name")
    assert configs.loc["binary-top30", "fields.speed_bar"] == 30
    assert not configs.loc["binary-top30", "may_change"]  # built in: staff only
    checked = reward_services.check_simulation_request(config_names=["binary-top30"])
    simulation = reward_services.do_create_simulation(**checked, queue=False)
    simulations = co.simulations()
    assert simulations["id"].tolist() == [simulation.pk]
    assert simulations.loc[0, "noise_cvs"] == [0.0, 0.05, 0.2]
    with pytest.raises(ServerRejected, match="noise_cvs"):
        co.simulate(["binary-top30"], noise_cvs=[9])

    builds = co.dataset_builds()
    assert builds.loc[0, "status"] == "done"
    assert ["time-discriminative", 1] in builds.loc[0, "funnel"]
    with pytest.raises(ServerRejected, match="repeats"):
        co.build_dataset(["sum"], repeats=1)
