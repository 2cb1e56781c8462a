"""The tiny policy end to end on a CPU: a tokenizer trained here, a warm start that teaches
it programs, sampling with log-probabilities, and one GRPO update that raises the objective it
follows and makes the punished samples less likely."""

from __future__ import annotations

import torch

from tests.hand_samples import hand_sample
from training.advantages import group_advantages
from training.config import TrainConfig
from training.policy import TinyModelConfig, tiny_model, train_tokenizer
from training.rollout import (
    completion_target,
    encode_batch,
    extract_program,
    make_prompt,
    sample_groups,
    token_logprobs,
)
from training.update import grpo_update, warm_start

PROGRAMS = ["n = int(input())\nprint(n * 2)\n", "print(sum(map(int, input().split())))\n"]
PROMPTS = [make_prompt("Print twice n."), make_prompt("Print the sum of the numbers.")]


def test_a_program_is_extracted_up_to_the_closing_fence_and_a_missing_one_is_none():
    assert extract_program("print(1)\n```\nthanks") == "print(1)\n"
    assert extract_program("print(1)\n") is None  # cut off: a format failure
    assert extract_program("```\n") is None
    assert make_prompt("S", "print(2)").count("```python") == 2


def _sequence_logprob(model, tokenizer, sample, temperature: float = 0.7) -> float:
    ids, attention, mask = encode_batch(tokenizer, [sample.prompt_ids], [sample.completion_ids])
    with torch.no_grad():
        logprobs, _ = token_logprobs(model, ids, attention, temperature)
    return float((logprobs * mask).sum())


def _completion_ids(tokenizer, program: str) -> list[int]:
    return tokenizer(completion_target(program))["input_ids"] + [tokenizer.eos_token_id]


def test_the_tiny_model_warms_up_samples_and_one_update_moves_it():
    tokenizer = train_tokenizer(PROMPTS + PROGRAMS, vocab_size=400)
    assert tokenizer.decode(tokenizer(PROGRAMS[1])["input_ids"]) == PROGRAMS[1]
    model = tiny_model(tokenizer, TinyModelConfig(n_layer=1, n_head=2, n_embd=32, n_positions=256))
    losses = warm_start(
        model,
        tokenizer,
        list(zip(PROMPTS, PROGRAMS, strict=True)),
        steps=200,
        learning_rate=3e-3,
        batch_size=4,
    )
    assert losses[-1] < losses[0] / 4
    torch.manual_seed(1)
    samples = sample_groups(
        model, tokenizer, PROMPTS, 4, max_new_tokens=40, temperature=0.7, policy_version=7
    )
    assert [s.prompt_index for s in samples] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert all(len(s.logprobs) == len(s.completion_ids) and s.policy_version == 7 for s in samples)
    assert sum(s.program == PROGRAMS[s.prompt_index] for s in samples) >= 4  # it learnt them

    config = TrainConfig(
        group_size=4, prompts_per_step=2, learning_rate=1e-3, token_budget=64, temperature=0.7
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=0.0)
    before = [p.detach().clone() for p in model.parameters()]
    tied = grpo_update(model, optimizer, tokenizer, samples, -torch.ones(2, 4), config)
    assert tied["losses/skipped"] == 1.0  # every group all-negative: no gradient, no step
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))

    # The warm-started model samples nearly the same program four times; with equal
    # completions the group's advantages cancel (Σ L_i·A_i = 0) and what the step does to any
    # one of them is float noise. So the group that teaches is built from four different
    # completions (the learnt program rewarded, three others punished), scored as sampled.
    group = [PROGRAMS[0], PROGRAMS[1], "print(0)\n", "n = 1\n"]
    sampled_as = {"temperature": 0.7, "policy_version": 7}  # as sample_groups did above
    taught = [
        hand_sample(model, tokenizer, 0, PROMPTS[0], ids, **sampled_as)
        for ids in (_completion_ids(tokenizer, program) for program in group)
    ] + samples[4:]
    rewards = torch.tensor([[1.0, -1.0, -1.0, -1.0], [-1.0, -1.0, -1.0, -1.0]])
    lengths = torch.tensor([[len(s.completion_ids) for s in taught[:4]]])
    advantages = group_advantages(rewards[:1], lengths)[0]
    before_logprobs = [_sequence_logprob(model, tokenizer, s) for s in taught[:4]]
    metrics = grpo_update(model, optimizer, tokenizer, taught, rewards, config)
    assert metrics["losses/skipped"] == 0.0 and metrics["losses/clip_fraction"] == 0.0
    assert metrics["train/tokens"] == sum(len(s.completion_ids) for s in taught[:4])
    changes = [
        _sequence_logprob(model, tokenizer, s) - before
        for s, before in zip(taught[:4], before_logprobs, strict=True)
    ]
    # The objective the step follows, Σ_i A_i·Δlog π(o_i), rises by far more than float
    # noise, and every punished program becomes less likely. (The rewarded one is already
    # near-certain, log π ≈ -0.2: what a step does to it is the others' side effect.)
    assert float(advantages @ torch.tensor(changes, dtype=advantages.dtype)) > 0.1
    assert max(changes[1:]) < -0.1
