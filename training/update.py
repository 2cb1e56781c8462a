"""One GRPO update and the supervised warm start. Plain torch (docs/grpo.md)."""

from __future__ import annotations

import random
from collections.abc import Callable

import torch

from training.advantages import group_advantages, tied_groups
from training.config import TrainConfig
from training.loss import policy_loss
from training.rollout import (
    Sample,
    completion_logprobs,
    completion_target,
    encode_batch,
    token_logprobs,
)


def grpo_update(
    model,
    optimizer,
    tokenizer,
    samples: list[Sample],
    rewards: torch.Tensor,
    config: TrainConfig,
    ref_model=None,
) -> dict[str, float]:
    """One optimizer step on scored rollouts. samples: P groups of G, in group order;
    rewards: (P, G); ref_model: the reference policy of the KL term (used when
    config.kl_beta > 0).

    1. advantages (eq. 1-2) from rewards and completion lengths; a tied group (all its
       rewards equal, `tied_groups`) has advantages of exactly zero;
    2. the samples the loss needs: without KL, a tied group's policy term is exactly zero, so
       it is left out of the forward pass, and with every group tied the step is skipped;
       with KL (β > 0 and a reference), every sample keeps its KL term (eq. 5 sums over all
       of them), so every sample is taken;
    3. for μ inner epochs: log-probabilities under the current policy, the clipped loss
       over the constant token budget (eq. 3-5), backward, gradient-norm clip at 1, step.
    """
    groups, group_size = rewards.shape
    lengths = torch.tensor([len(s.completion_ids) for s in samples]).view(groups, group_size)
    advantages = group_advantages(
        rewards,
        lengths,
        token_weighted_baseline=config.token_weighted_baseline,
        normalize_std=config.normalize_std,
    ).flatten()
    with_kl = ref_model is not None and config.kl_beta > 0
    tied = tied_groups(rewards).repeat_interleave(group_size)  # (P·G,)
    useful = [i for i, s in enumerate(samples) if s.completion_ids and (with_kl or not tied[i])]
    metrics = {"losses/skipped": 0.0, "train/learning_rate": optimizer.param_groups[0]["lr"]}
    if not useful:
        metrics["losses/skipped"] = 1.0
        return metrics
    chosen = [samples[i] for i in useful]
    device = next(model.parameters()).device
    # (B, T) aligned at each completion's start: completion_logprobs' layout
    width = max(len(s.completion_ids) for s in chosen)
    old = torch.zeros((len(chosen), width))
    for row, sample in enumerate(chosen):
        old[row, : len(sample.logprobs)] = torch.tensor(sample.logprobs)
    old = old.to(device)
    reference = None
    if with_kl:
        with torch.no_grad():
            reference, _ = completion_logprobs(ref_model, chosen, config.temperature)
    model.eval()  # no dropout: the first epoch's ratio is exactly 1 (gradients still flow)
    for _ in range(config.inner_epochs):
        logprobs, completion_mask, (entropy_sum, entropy_tokens) = completion_logprobs(
            model, chosen, config.temperature, entropy=True
        )
        terms = policy_loss(
            logprobs,
            old,
            advantages[useful].to(device),
            completion_mask,
            token_budget=config.token_budget,
            clip_epsilon=config.clip_epsilon,
            ref_logprobs=reference,
            kl_beta=config.kl_beta,
        )
        optimizer.zero_grad(set_to_none=True)
        terms.loss.backward()
        trainable = [p for p in model.parameters() if p.requires_grad]
        grad_norm = torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
    metrics.update(
        {
            "losses/policy": terms.policy,
            "losses/kl": terms.kl,
            "losses/clip_fraction": terms.clip_fraction,
            "losses/entropy": entropy_sum / max(entropy_tokens, 1),
            "losses/grad_norm": float(grad_norm),
            "train/tokens": float(terms.tokens),
        }
    )
    return metrics


def warm_start(
    model,
    tokenizer,
    examples: list[tuple[str, str]],
    *,
    steps: int,
    learning_rate: float = 1e-3,
    batch_size: int = 8,
    seed: int = 0,
    on_step: Callable[[int, int], None] | None = None,
) -> list[float]:
    """Supervised steps on (prompt, program) pairs so the tiny model writes valid programs:
    cross-entropy on the completion tokens only. Returns each step's loss; `on_step(done,
    steps)` after each (the run page's progress)."""
    if not examples:
        raise ValueError("examples: no (prompt, program) pair to warm-start on")
    rng = random.Random(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    encoded = [
        (
            tokenizer(prompt)["input_ids"],
            tokenizer(completion_target(program))["input_ids"] + [tokenizer.eos_token_id],
        )
        for prompt, program in examples
    ]
    limit = model.config.n_positions if hasattr(model.config, "n_positions") else None
    if limit is not None:
        encoded = [(p, c) for p, c in encoded if len(p) + len(c) <= limit]
        if not encoded:
            raise ValueError(f"examples: every prompt + program is over {limit} tokens")
    losses = []
    model.train()
    for done in range(1, steps + 1):
        batch = [rng.choice(encoded) for _ in range(batch_size)]
        input_ids, attention, completion_mask = encode_batch(
            tokenizer, [p for p, _ in batch], [c for _, c in batch]
        )
        logprobs, _ = token_logprobs(model, input_ids, attention)
        completion_mask = completion_mask.to(logprobs.device)
        loss = -(logprobs * completion_mask).sum() / completion_mask.sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
        if on_step is not None:
            on_step(done, steps)
    return losses
