"""The GRPO adaptations on hand-built tensors whose values are worked out by hand:
token-weighted baseline, no std division, constant token budget, clipping, KL, group kinds,
the staleness filter, and the run config's checks."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
import torch

from training.advantages import group_advantages, group_counts
from training.config import TrainConfig
from training.loss import policy_loss
from training.staleness import filter_stale


def test_the_baseline_is_the_token_weighted_mean_of_the_group():
    rewards = torch.tensor([[1.0, -1.0, -1.0, 1.0], [-1.0, -1.0, -1.0, -1.0]])
    lengths = torch.tensor([[10, 30, 20, 20], [5, 50, 7, 9]])
    # b = (10 - 30 - 20 + 20) / 80 = -0.25
    got = group_advantages(rewards, lengths)
    assert got[0].tolist() == pytest.approx([1.25, -0.75, -0.75, 1.25])
    assert got[1].tolist() == [0.0, 0.0, 0.0, 0.0]  # an all-equal group has no gradient
    plain = group_advantages(rewards, lengths, token_weighted_baseline=False)
    assert plain[0].tolist() == pytest.approx([1.0, -1.0, -1.0, 1.0])


def test_a_tied_group_has_exactly_zero_advantages_even_when_its_mean_does_not_round_back():
    # 0.1 three times: the mean (and the token-weighted mean) rounds to 0.10000000000000002,
    # so r - b is 1e-17, not 0; the tie is read off the rewards, not the arithmetic
    rewards = torch.full((2, 3), 0.1, dtype=torch.float64)
    lengths = torch.tensor([[1, 2, 3], [1, 1, 1]])
    for options in ({}, {"token_weighted_baseline": False}, {"normalize_std": True}):
        got = group_advantages(rewards, lengths, **options)
        assert torch.count_nonzero(got) == 0, options
    mixed = group_advantages(torch.tensor([[0.1, 0.1, 0.2]]), torch.ones(1, 3))
    assert torch.count_nonzero(mixed) == 3  # a group that is not tied keeps its advantages


def test_without_std_division_a_noise_sized_gap_stays_noise_sized():
    # two correct programs whose speed rewards differ by timing noise only
    rewards, lengths = torch.tensor([[0.51, 0.49]]), torch.tensor([[10, 10]])
    assert group_advantages(rewards, lengths)[0].tolist() == pytest.approx([0.01, -0.01])
    normalized = group_advantages(rewards, lengths, normalize_std=True)
    assert normalized[0].tolist() == pytest.approx([1.0, -1.0], abs=1e-3)  # amplified 100x
    tied = group_advantages(torch.tensor([[-1.0, -1.0]]), lengths, normalize_std=True)
    assert tied[0].tolist() == [0.0, 0.0]


LOG_RATIOS = torch.log(torch.tensor([[1.0, 1.5, 0.5], [1.1, 0.7, 1.0]]))
MASK = torch.tensor([[1, 1, 1], [1, 1, 0]])
ADVANTAGES = torch.tensor([1.0, -2.0])


def _loss(log_ratios=LOG_RATIOS, mask=MASK, advantages=ADVANTAGES, **kwargs):
    old = torch.full(log_ratios.shape, -2.0)
    logprobs = (old + log_ratios).requires_grad_()
    terms = policy_loss(logprobs, old, advantages, mask, token_budget=10, **kwargs)
    return terms, logprobs


def test_the_clipped_loss_over_a_constant_token_budget_by_hand():
    terms, logprobs = _loss()
    # sample 0 (A = 1): min(1, 1) + min(1.5, 1.2) + min(0.5, 0.8) = 2.7
    # sample 1 (A = -2): min(-2.2, -2.2) + min(-1.4, -1.6) = -3.8; the padding is ignored
    assert terms.policy == pytest.approx(-(2.7 - 3.8) / 10)
    assert terms.tokens == 5 and terms.clip_fraction == pytest.approx(3 / 5)
    terms.loss.backward()
    # d/dlogp of -rho*A/budget where the unclipped term is the minimum; 0 where clipped
    expected = [[-0.1, 0.0, -0.05], [0.22, 0.0, 0.0]]
    assert logprobs.grad.tolist() == [pytest.approx(row) for row in expected]


def test_a_longer_sample_weighs_more_and_padding_changes_nothing():
    base, _ = _loss()
    padded, _ = _loss(
        torch.cat([LOG_RATIOS, torch.zeros(2, 4)], dim=1),
        torch.cat([MASK, torch.zeros(2, 4, dtype=torch.long)], dim=1),
    )
    assert padded.policy == pytest.approx(base.policy)
    # sample 0 twice as long (its tokens repeated): its part of the sum doubles, where a
    # per-sample mean would have left it unchanged
    longer, _ = _loss(
        torch.cat([LOG_RATIOS, torch.cat([LOG_RATIOS[:1], torch.zeros(1, 3)])], dim=1),
        torch.cat([MASK, torch.tensor([[1, 1, 1], [0, 0, 0]])], dim=1),
    )
    assert longer.policy == pytest.approx(-(2 * 2.7 - 3.8) / 10)


def test_the_kl_penalty_is_k3_over_the_budget():
    old = torch.full((1, 2), -1.0)
    reference = old + torch.tensor([[math.log(2.0), 0.0]])  # d = ln 2 on the first token
    terms = policy_loss(
        old.clone(),
        old,
        torch.tensor([0.0]),
        torch.ones(1, 2),
        token_budget=4,
        ref_logprobs=reference,
        kl_beta=0.5,
    )
    k3 = 2.0 - math.log(2.0) - 1.0
    assert terms.kl == pytest.approx(k3 / 4)
    assert float(terms.loss) == pytest.approx(0.5 * k3 / 4)


def test_groups_are_counted_by_kind():
    rewards = torch.tensor([[-1.0, -1, -1], [1, 1, 1], [1, -1, 1], [-1, -1, -1]])
    correct = torch.tensor([[0, 1, 0], [1, 1, 1], [1, 0, 1], [1, 1, 1]], dtype=torch.bool)
    nan = math.nan
    percentiles = torch.tensor([[nan, 60, nan], [10, 12, 14], [5, nan, 9], [40, 60, 50]])
    counts = group_counts(rewards, correct, percentiles, tie_band=5.0)
    assert counts.metrics() == {
        "groups/all_negative": 0.5,
        "groups/all_positive": 0.25,
        "groups/mixed": 0.25,
        "groups/all_correct_tied": 0.25,  # group 1: all correct, 4 points apart
    }


@dataclass
class Rollout:
    policy_version: int


def test_the_staleness_filter_drops_what_is_too_old_and_counts_it():
    rollouts = [Rollout(10), Rollout(9), Rollout(0), Rollout(5)]
    kept, report = filter_stale(rollouts, current_version=35, max_staleness_steps=30)
    assert [r.policy_version for r in kept] == [10, 9, 5]  # 30 behind is still allowed
    assert (report.kept, report.dropped) == (3, 1)
    assert dict(report.histogram) == {25: 1, 26: 1, 35: 1, 30: 1}
    assert report.metrics()["staleness/max"] == 35.0
    assert (
        report.metrics()["staleness/age_35"] == 0.25 and "staleness/age_31" not in report.metrics()
    )
    with pytest.raises(ValueError, match="policy_version: 36 is ahead"):
        filter_stale([Rollout(36)], 35, 30)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"group_size": 1}, "group_size: must be in [2, 1024], not 1"),
        ({"token_budget": 0}, "token_budget: must be in [1, 10000000], not 0"),
        ({"group_size": 2.5}, "group_size: must be a whole number"),
        ({"learning_rate": "fast"}, "learning_rate: must be a number"),
        ({"normalize_std": "no"}, "normalize_std: must be true or false"),
        ({"reward_config": ""}, "reward_config: must be a non-empty text"),
        ({"batch": 3}, "batch: unknown field"),
    ],
)
def test_a_bad_train_config_is_named(data, message):
    with pytest.raises(ValueError) as error:
        TrainConfig.from_dict(data)
    assert str(error.value).startswith(message)


def test_a_train_config_reads_from_toml(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('reward_config = "binary-top50"\ngroup_size = 8\nlearning_rate = 3e-4\n')
    config = TrainConfig.from_toml(path)
    assert (config.reward_config, config.group_size, config.learning_rate) == (
        "binary-top50",
        8,
        3e-4,
    )
    assert config.token_budget == 32_768 and config.max_staleness_steps == 30
    path.write_text("group_size = \n")
    with pytest.raises(ValueError, match="config: cannot read"):
        TrainConfig.from_toml(path)
