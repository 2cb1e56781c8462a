"""Rollouts built by hand for GRPO tests: a given completion of a given prompt, with the
log-probabilities the policy would have sampled it with."""

from __future__ import annotations

import torch

from training.rollout import Sample, encode_batch, token_logprobs


def hand_sample(
    model,
    tokenizer,
    prompt_index: int,
    prompt: str,
    completion_ids: list[int],
    *,
    temperature: float = 1.0,
    policy_version: int = 0,
) -> Sample:
    """`completion_ids` as a completion of `prompt`, logprobs under `model` at `temperature`."""
    prompt_ids = tokenizer(prompt)["input_ids"]
    ids, attention, mask = encode_batch(tokenizer, [prompt_ids], [completion_ids])
    with torch.no_grad():
        logprobs, _ = token_logprobs(model, ids, attention, temperature)
    taken = logprobs[0][mask[0].bool()].tolist()
    text = tokenizer.decode(completion_ids)
    return Sample(
        prompt_index, prompt_ids, completion_ids, text, None, False, policy_version, taken
    )
