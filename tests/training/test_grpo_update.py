"""Which samples one GRPO update takes into its forward pass: a tied group (every reward
equal) has no policy gradient, so without KL it is left out and an all-tied batch is no step;
with KL every sample still carries its KL term (docs/grpo.md, eq. 5), tied or not.

A fresh tiny GPT-2 and hand-built samples: no warm start, no sampling."""

from __future__ import annotations

import pytest
import torch

from tests.hand_samples import hand_sample
from training.config import TrainConfig
from training.policy import TinyModelConfig, tiny_model, train_tokenizer
from training.rollout import Sample, encode_batch, make_prompt, token_logprobs
from training.update import grpo_update

PROMPTS = [make_prompt("Print twice n."), make_prompt("Print the sum of the numbers.")]
COMPLETIONS = [
    ["print(2 * int(input()))\n```\n", "n = int(input())\n```\n", "print(n)\n```\n"],
    ["print(sum(map(int, input().split())))\n```\n", "print(0)\n```\n", "x = 1\n```\n"],
]
SIZE = TinyModelConfig(n_layer=1, n_head=2, n_embd=16, n_positions=128)


@pytest.fixture(scope="module")
def tokenizer():
    return train_tokenizer(PROMPTS + [c for group in COMPLETIONS for c in group], 300)


def _samples(model, tokenizer) -> list[Sample]:
    """Two groups of three; logprobs under `model` (it sampled them, at temperature 1)."""
    return [
        hand_sample(model, tokenizer, index, prompt, tokenizer(text)["input_ids"])
        for index, (prompt, texts) in enumerate(zip(PROMPTS, COMPLETIONS, strict=True))
        for text in texts
    ]


def _kl_over_every_sample(model, ref_model, tokenizer, samples, budget: int) -> float:
    """Σ k3 over every completion token of every sample / budget (eq. 5), by hand."""
    ids, attention, mask = encode_batch(
        tokenizer, [s.prompt_ids for s in samples], [s.completion_ids for s in samples]
    )
    with torch.no_grad():
        policy, _ = token_logprobs(model, ids, attention)
        reference, _ = token_logprobs(ref_model, ids, attention)
    difference = reference - policy
    return float(((difference.exp() - difference - 1) * mask).sum() / budget)


def _step(tokenizer, rewards, kl_beta: float, **options):
    model, ref_model = tiny_model(tokenizer, SIZE, seed=0), tiny_model(tokenizer, SIZE, seed=1)
    samples = _samples(model, tokenizer)
    config = TrainConfig(
        group_size=3,
        prompts_per_step=2,
        learning_rate=1e-3,
        token_budget=64,
        kl_beta=kl_beta,
        **options,
    )
    expected_kl = _kl_over_every_sample(model, ref_model, tokenizer, samples, 64)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    before = [p.detach().clone() for p in model.parameters()]
    metrics = grpo_update(model, optimizer, tokenizer, samples, rewards, config, ref_model)
    moved = any(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    return metrics, moved, expected_kl, sum(len(s.completion_ids) for s in samples)


def test_without_kl_a_batch_of_tied_groups_is_no_step_even_when_the_rewards_round_unevenly(
    tokenizer,
):
    # the mean of three 0.1s is 0.10000000000000002: judged from r - mean(r) the tie is lost
    tied = torch.full((2, 3), 0.1, dtype=torch.float64)
    metrics, moved, _, _ = _step(tokenizer, tied, 0.0, token_weighted_baseline=False)
    assert metrics["losses/skipped"] == 1.0 and not moved


def test_without_kl_a_tied_group_is_left_out_of_the_forward_pass(tokenizer):
    rewards = torch.tensor([[1.0, -1.0, -1.0], [0.1, 0.1, 0.1]], dtype=torch.float64)
    metrics, moved, _, _ = _step(tokenizer, rewards, 0.0, token_weighted_baseline=False)
    first_group = sum(len(tokenizer(text)["input_ids"]) for text in COMPLETIONS[0])
    assert metrics["losses/skipped"] == 0.0 and moved
    assert metrics["train/tokens"] == first_group


def test_with_kl_a_batch_of_tied_groups_still_takes_its_kl_step(tokenizer):
    metrics, moved, expected_kl, tokens = _step(tokenizer, -torch.ones(2, 3), 0.5)
    assert metrics["losses/skipped"] == 0.0 and moved
    assert metrics["train/tokens"] == tokens
    assert expected_kl > 0 and metrics["losses/kl"] == pytest.approx(expected_kl, rel=1e-5)
    assert metrics["losses/policy"] == 0.0  # every advantage is exactly zero


def test_with_kl_a_tied_group_of_a_mixed_batch_keeps_its_kl_term(tokenizer):
    rewards = torch.tensor([[1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]])
    metrics, _, expected_kl, tokens = _step(tokenizer, rewards, 0.5)
    assert metrics["train/tokens"] == tokens
    assert metrics["losses/kl"] == pytest.approx(expected_kl, rel=1e-5)
