"""Sampling rollouts. Plain Python + torch. Prompts and program extraction live in
workers/training/prompts.py (no torch; re-exported here)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from workers.training.prompts import FENCE, completion_target, extract_program, make_prompt

__all__ = ["FENCE", "completion_target", "extract_program", "make_prompt"]


@dataclass
class Sample:
    prompt_index: int
    prompt_ids: list[int]
    completion_ids: list[int]
    text: str
    program: str | None
    truncated: bool  # stopped by max_new_tokens, not by the end-of-text token
    policy_version: int = 0
    logprobs: list[float] | None = None  # per completion token, under the sampling policy


def encode_batch(tokenizer, prompts: list[list[int]], completions: list[list[int]]):
    """Right-padded (input_ids, attention_mask, completion_mask), each (B, L): the mask marks
    the completion tokens that the loss and the log-probabilities cover."""
    length = max(len(p) + len(c) for p, c in zip(prompts, completions, strict=True))
    batch = len(prompts)
    input_ids = torch.full((batch, length), tokenizer.pad_token_id, dtype=torch.long)
    attention = torch.zeros((batch, length), dtype=torch.long)
    completion_mask = torch.zeros((batch, length), dtype=torch.long)
    for row, (prompt, completion) in enumerate(zip(prompts, completions, strict=True)):
        ids = prompt + completion
        input_ids[row, : len(ids)] = torch.tensor(ids)
        attention[row, : len(ids)] = 1
        completion_mask[row, len(prompt) : len(ids)] = 1
    return input_ids, attention, completion_mask


def token_logprobs(model, input_ids, attention_mask, temperature: float = 1.0):
    """(B, L) log-probability of each token given those before it (position 0: 0), under
    `model` at `temperature` (the distribution rollouts were sampled from); and the logits.
    Both on the model's device."""
    device = next(model.parameters()).device
    input_ids, attention_mask = input_ids.to(device), attention_mask.to(device)
    logits = model(input_ids=input_ids, attention_mask=attention_mask).logits / temperature
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    taken = logp.gather(-1, input_ids[:, 1:, None])[..., 0]  # (B, L-1)
    return torch.cat([torch.zeros_like(taken[:, :1]), taken], dim=1), logits


@torch.no_grad()
def sample_groups(
    model,
    tokenizer,
    prompts: list[str],
    group_size: int,
    *,
    max_new_tokens: int,
    temperature: float = 1.0,
    policy_version: int = 0,
) -> list[Sample]:
    """`group_size` completions of each prompt (prompt order, then sample order)."""
    model.eval()
    samples: list[Sample] = []
    for index, prompt in enumerate(prompts):
        prompt_ids = tokenizer(prompt)["input_ids"]
        device = next(model.parameters()).device
        output = model.generate(
            torch.tensor([prompt_ids] * group_size, device=device),
            attention_mask=torch.ones(
                (group_size, len(prompt_ids)), dtype=torch.long, device=device
            ),
            do_sample=True,
            temperature=temperature,
            top_k=0,
            max_new_tokens=max_new_tokens,
            pad_token_id=tokenizer.pad_token_id,
            eos_token_id=tokenizer.eos_token_id,
        )
        for row in output[:, len(prompt_ids) :].tolist():
            ended = tokenizer.eos_token_id in row
            completion = row[: row.index(tokenizer.eos_token_id) + 1] if ended else row
            text = tokenizer.decode(completion, skip_special_tokens=True)
            samples.append(
                Sample(
                    index,
                    prompt_ids,
                    completion,
                    text,
                    extract_program(text),
                    truncated=not ended,
                    policy_version=policy_version,
                )
            )
    _attach_logprobs(model, tokenizer, samples, temperature)
    return samples


def _attach_logprobs(model, tokenizer, samples: list[Sample], temperature: float) -> None:
    """Each sample's completion-token log-probabilities under the policy that sampled it:
    the update's π_old, even when the update happens versions later."""
    input_ids, attention, completion_mask = encode_batch(
        tokenizer, [s.prompt_ids for s in samples], [s.completion_ids for s in samples]
    )
    logprobs, _ = token_logprobs(model, input_ids, attention, temperature)
    logprobs = logprobs.cpu()
    for row, sample in enumerate(samples):
        sample.logprobs = logprobs[row][completion_mask[row].bool()].tolist()
