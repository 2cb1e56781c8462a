"""The training loop on a CPU with a tiny policy and real sandbox scoring: every metric of a
step is reported, samples are recorded, checkpoints are written, and a run that crashes
resumes from its checkpoint with a continuous metric series."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from rewards.engine import RewardConfig
from tests.support.trainer import MemorySink, tiny_run_config
from tests.training_problems import sum_training_problem, warmed_tiny_policy
from training.loop import LocalScorer, Trainer

STEP_KEYS = {
    "rewards/mean",
    "rewards/std",
    "groups/all_negative",
    "groups/all_positive",
    "groups/mixed",
    "groups/all_correct_tied",
    "eval/p100",
    "eval/p50",
    "eval/p30",
    "eval/speed_percentile",
    "completions/length_mean",
    "completions/length_max",
    "completions/truncated",
    "timing/scoring_latency_s",
    "staleness/dropped",
    "staleness/mean",
    "staleness/max",
    "time/generate_s",
    "time/score_wait_s",
    "time/update_s",
    "time/step_s",
    "time/overhead_share",
    "train/learning_rate",
    "losses/skipped",
}


@pytest.fixture(scope="module")
def policy():
    return warmed_tiny_policy()


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    return sum_training_problem(tmp_path_factory.mktemp("sum"))


CONFIG = tiny_run_config(prompts_per_step=1, max_new_tokens=60, checkpoint_every=1, temperature=0.8)
REWARD = RewardConfig("binary-top50", speed_bar=50)


def trainer(policy, problem, sink, tmp_path, config=CONFIG):
    model, tokenizer = copy.deepcopy(policy)
    return Trainer(config, model, tokenizer, [problem], LocalScorer(REWARD), sink, tmp_path)


def test_a_run_reports_every_step_records_samples_and_checkpoints(policy, problem, tmp_path):
    sink = MemorySink()
    run = trainer(policy, problem, sink, tmp_path)
    assert run.run() == 3
    assert sink.logged == [1, 2, 3]  # at the optimizer steps done: checkpoint step-000003
    for step in (1, 2, 3):
        assert STEP_KEYS <= set(sink.metrics[step]), STEP_KEYS - set(sink.metrics[step])
        rows = sink.rows[step]
        assert [(r.group, r.index) for r in rows] == [(0, i) for i in range(4)]
        assert all(r.problem == "sum" and r.verdict for r in rows)
    # the batch of step k was sampled while step k - 1 was scored: one version behind
    assert sink.metrics[1]["staleness/max"] == 0.0 and sink.metrics[2]["staleness/max"] == 1.0
    assert sink.metrics[3]["eval/p100"] == sum(r.correct for r in sink.rows[3]) / 4
    # the last two, and the starting point (what evaluations compare the run against)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "step-000000",
        "step-000002",
        "step-000003",
    ]


def test_a_crashed_run_resumes_from_its_checkpoint_without_gaps(policy, problem, tmp_path):
    config = dataclasses.replace(CONFIG, steps=4, checkpoint_every=2)
    crashing = MemorySink(crash_at_step=4)  # after the checkpoint at version 2, step 3 sent
    with pytest.raises(RuntimeError, match="worker lost"):
        trainer(policy, problem, crashing, tmp_path, config).run()
    assert crashing.logged == [1, 2, 3]
    resumed_sink = MemorySink()
    resumed = trainer(policy, problem, resumed_sink, tmp_path, config)
    assert resumed.resume() and resumed.version == 2
    assert resumed.run() == 4
    assert resumed_sink.logged == [3, 4]  # step 3 is sent again (it overwrites), 4 is new
    combined = {**crashing.metrics, **resumed_sink.metrics}
    assert sorted(combined) == [1, 2, 3, 4]
    # the resumed step 3 is the batch policy 1 had sampled before the crash, kept with the
    # checkpoint: its staleness (and so its series) is the uninterrupted run's, not a fresh
    # batch of policy 2 (staleness/age_0 where the run had staleness/age_1)
    kept = json.loads((tmp_path / "step-000002" / "pending.json").read_text())
    assert [r.text for r in resumed_sink.rows[3]] == [s["text"] for s in kept[0][1]]
    assert {r.policy_version for r in resumed_sink.rows[3]} == {1}
    straight = MemorySink()
    trainer(policy, problem, straight, tmp_path / "straight", config).run()
    for step in (3, 4):
        assert set(resumed_sink.metrics[step]) == set(straight.metrics[step]), step
        staleness = {k: v for k, v in straight.metrics[step].items() if k.startswith("stale")}
        assert staleness == {k: resumed_sink.metrics[step][k] for k in staleness}
    assert straight.metrics[3]["staleness/age_1"] == 1.0


def test_a_stop_request_ends_the_run_after_the_step_with_a_checkpoint(policy, problem, tmp_path):
    sink = MemorySink()
    run = trainer(policy, problem, sink, tmp_path, dataclasses.replace(CONFIG, checkpoint_every=5))
    sink.stop = True
    assert run.run() == 1
    assert sink.logged == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-000000", "step-000001"]


def test_a_time_budget_ends_the_run_after_the_step_that_spends_it(policy, problem, tmp_path):
    sink = MemorySink()
    budgeted = dataclasses.replace(CONFIG, steps=50, max_minutes=1e-4, checkpoint_every=10)
    run = trainer(policy, problem, sink, tmp_path, budgeted)
    assert run.run() == 1 and run.out_of_time
    assert sink.logged == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["step-000000", "step-000001"]


def test_a_run_with_kl_uses_its_starting_point_as_the_reference_and_reports_the_term(
    policy, problem, tmp_path
):
    """kl_beta > 0 used to do nothing: no caller passed a reference policy."""
    import torch

    sink = MemorySink()
    run = trainer(policy, problem, sink, tmp_path, dataclasses.replace(CONFIG, kl_beta=0.1))
    assert run.run() == 3
    start = torch.load(tmp_path / "step-000000" / "state.pt", weights_only=True)["model"]
    reference = run.ref_model.state_dict()
    assert all(torch.equal(reference[name], value) for name, value in start.items())
    assert not any(p.requires_grad for p in run.ref_model.parameters())
    moved = any(not torch.equal(run.model.state_dict()[n], v) for n, v in start.items())
    assert moved  # the policy left its starting point, the reference did not
    kls = [sink.metrics[step].get("losses/kl") for step in (1, 2, 3)]
    assert all(k is not None for k in kls) and kls[0] == pytest.approx(0.0, abs=1e-6)
    assert max(kls[1:]) > 0
