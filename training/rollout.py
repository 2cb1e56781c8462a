"""Sampling rollouts. Plain Python + torch. Prompts and program extraction live in
lm/prompts.py (no torch; re-exported here)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from lm.prompts import FENCE, completion_target, extract_program, make_prompt

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


def completion_logprobs(model, samples: list[Sample], temperature: float = 1.0, entropy=False):
    """(B, T) log-probability of each completion token (aligned at the completion's start,
    T = the longest completion; 0 past a completion's end), (B, T) mask of real tokens, and,
    with `entropy`, the summed entropy (nats) of the next-token distributions over real
    tokens and their count. On the model's device.

    Samples of one group share their prompt, so the prompt goes through the model once per
    group, not once per sample: its keys and values are computed with gradients, repeated for
    each completion, and the completions attend to them (the prompts here are 250-500 tokens,
    the programs 50-200: 3-5x fewer tokens than one padded batch of prompt + completion).
    The result is the full forward's (`token_logprobs`), up to float rounding;
    `tests/test_shared_prompt_logprobs.py` compares them.

    1. consecutive samples with the same prompt ids form a group;
    2. the prompt's forward keeps its cache and the logits of its last position only (they
       predict the first completion token);
    3. the cache is repeated G times along the batch, and the right-padded completions run on
       it with positions that continue the prompt's;
    4. log-softmax over [prompt's last logits, completion logits but the last], at
       `temperature`, gathered at the completion tokens.
    """
    device = next(model.parameters()).device
    longest = max((len(s.completion_ids) for s in samples), default=0)
    logprobs = torch.zeros((len(samples), longest), device=device)
    mask = torch.zeros((len(samples), longest), dtype=torch.long, device=device)
    entropy_sum, entropy_tokens = torch.zeros((), device=device), 0
    rows = [logprobs[i] for i in range(len(samples))]  # filled group by group, then stacked
    start = 0
    while start < len(samples):
        end = start
        while end < len(samples) and samples[end].prompt_ids == samples[start].prompt_ids:
            end += 1
        group = samples[start:end]
        taken, group_mask, logits = _group_logprobs(model, group, temperature, device)
        width = taken.shape[1]
        for offset in range(len(group)):
            rows[start + offset] = torch.nn.functional.pad(taken[offset], (0, longest - width))
        mask[start:end, :width] = group_mask
        if entropy and width:
            with torch.no_grad():
                logp = torch.log_softmax(logits.float(), dim=-1)
                per_token = -(logp.exp() * logp).sum(dim=-1)  # (G, Tg)
                entropy_sum = entropy_sum + (per_token * group_mask).sum()
                entropy_tokens += int(group_mask.sum())
        start = end
    stacked = torch.stack(rows) if rows else logprobs
    if entropy:
        return stacked, mask, (float(entropy_sum), entropy_tokens)
    return stacked, mask


def _group_logprobs(model, group: list[Sample], temperature: float, device):
    """(G, Tg) completion-token log-probabilities, (G, Tg) mask and (G, Tg, V) logits of one
    group sharing its prompt (completion_logprobs, steps 2-4)."""
    width = max(len(s.completion_ids) for s in group)
    size = len(group)
    if width == 0:
        empty = torch.zeros((size, 0), device=device)
        return empty, empty.long(), empty[..., None]
    prompt = torch.tensor([group[0].prompt_ids], device=device)  # (1, Lp)
    head = model(input_ids=prompt, use_cache=True, logits_to_keep=1)
    cache = head.cache
    cache.batch_repeat_interleave(size)
    pad = 0  # any id: padded positions are masked out of attention and of the loss
    ids = torch.full((size, width), pad, dtype=torch.long, device=device)
    group_mask = torch.zeros((size, width), dtype=torch.long, device=device)
    for row, sample in enumerate(group):
        ids[row, : len(sample.completion_ids)] = torch.tensor(sample.completion_ids)
        group_mask[row, : len(sample.completion_ids)] = 1
    prompt_length = prompt.shape[1]
    attention = torch.cat(
        [torch.ones((size, prompt_length), dtype=torch.long, device=device), group_mask], dim=1
    )
    positions = torch.arange(prompt_length, prompt_length + width, device=device)
    tail = model(
        input_ids=ids,
        attention_mask=attention,
        position_ids=positions.expand(size, width),
        cache=cache,
        use_cache=True,
    )
    logits = (
        torch.cat([head.logits[:, -1:].expand(size, 1, -1), tail.logits[:, :-1]], dim=1)
        / temperature
    )  # (G, Tg, V): row t predicts completion token t
    taken = torch.log_softmax(logits.float(), dim=-1).gather(-1, ids[..., None])[..., 0]
    return taken * group_mask, group_mask, logits


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
    harnesses: list[str] | None = None,
) -> list[Sample]:
    """`group_size` completions of each prompt (prompt order, then sample order), each
    program followed by its prompt's harness (`harnesses`, "" for a problem posed as its
    statement; lm/prompts.py). A
    completion ends at the end-of-text token or at the fence that closes its program,
    whichever comes first: what a chat model writes after its code (an explanation) is never
    scored, so it is not sampled (half the tokens or more of an instruct model's answer)."""
    model.eval()
    samples: list[Sample] = []
    for index, prompt in enumerate(prompts):
        prompt_ids = tokenizer(prompt)["input_ids"]
        device = next(model.parameters()).device
        output = model.generate(
            torch.tensor([prompt_ids] * group_size, device=device),
            cache=_shared_prefix(model, prompt_ids, group_size),
            attention_mask=torch.ones(
                (group_size, len(prompt_ids)), dtype=torch.long, device=device
            ),
            do_sample=True,
            temperature=temperature,
            top_k=0,
            max_new_tokens=max_new_tokens,
            pad_token_id=tokenizer.pad_token_id,
            eos_token_id=tokenizer.eos_token_id,
            stop_strings=[FENCE],
            tokenizer=tokenizer,
        )
        for row in output[:, len(prompt_ids) :].tolist():
            completion, ended = _until_the_end(tokenizer, row)
            text = tokenizer.decode(completion, skip_special_tokens=True)
            samples.append(
                Sample(
                    index,
                    prompt_ids,
                    completion,
                    text,
                    extract_program(text, harnesses[index] if harnesses else ""),
                    truncated=not ended,
                    policy_version=policy_version,
                )
            )
    _attach_logprobs(model, tokenizer, samples, temperature)
    return samples


def _shared_prefix(model, prompt_ids: list[int], group_size: int):
    """The prompt's cache but its last token, computed once and repeated for the group:
    generate() then runs only the last prompt token and the new ones. Without it, it runs
    the whole prompt once per sample (8 x 300 tokens, as much work as 300 decoding steps)."""
    if len(prompt_ids) < 2:
        return None
    device = next(model.parameters()).device
    prefix = model(input_ids=torch.tensor([prompt_ids[:-1]], device=device), use_cache=True)
    cache = prefix.cache
    cache.batch_repeat_interleave(group_size)
    return cache


def _until_the_end(tokenizer, row: list[int]) -> tuple[list[int], bool]:
    """The sampled tokens up to and including the end-of-text token or the token that
    completes the closing fence (what follows is padding); and whether either was met."""
    for end, token in enumerate(row):
        if token == tokenizer.eos_token_id:
            return row[: end + 1], True
        if FENCE in tokenizer.decode(row[max(0, end - 3) : end + 1]):
            return row[: end + 1], True
    return row, False


def _attach_logprobs(model, tokenizer, samples: list[Sample], temperature: float) -> None:
    """Each sample's completion-token log-probabilities under the policy that sampled it:
    the update's π_old, even when the update happens versions later."""
    logprobs, mask = completion_logprobs(model, samples, temperature)
    logprobs, mask = logprobs.cpu(), mask.cpu()
    for row, sample in enumerate(samples):
        sample.logprobs = logprobs[row][mask[row].bool()].tolist()
