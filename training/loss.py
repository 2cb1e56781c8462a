"""The clipped policy loss over a constant token budget, with an optional KL penalty
(docs/grpo.md, equations 3-5). Plain torch.

Shapes: B samples, T completion tokens (padded; `mask` marks real tokens).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class LossTerms:
    loss: torch.Tensor  # what backward() is called on
    policy: float
    kl: float
    clip_fraction: float  # share of real tokens whose ratio was clipped
    tokens: int


def policy_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    token_budget: int,
    clip_epsilon: float = 0.2,
    ref_logprobs: torch.Tensor | None = None,
    kl_beta: float = 0.0,
) -> LossTerms:
    """Loss for one batch; logprobs (B, T) under the current policy (with grad),
    old_logprobs (B, T) under the policy that sampled them, advantages (B,), mask (B, T).

    1. ratio ρ_t = exp(logπ − logπ_old) per token (eq. 3);
    2. per-token objective min(ρ_t·A, clip(ρ_t, 1 − ε, 1 + ε)·A), negated for descent;
    3. summed over every real token of the batch and divided by the constant `token_budget`
       (eq. 4), not by each sample's length: a long program's tokens weigh what a short
       one's do, and the scale does not change with the batch's lengths;
    4. with β > 0, + β · Σ_t k3(π, π_ref) / token_budget, k3 = exp(d) − d − 1 with
       d = logπ_ref − logπ (eq. 5; non-negative, unbiased). A sample with A = 0 still has
       this term, so with β > 0 the batch must hold every sample, tied groups included.
    """
    if token_budget <= 0:
        raise ValueError("token_budget: must be > 0")
    mask = mask.to(logprobs.dtype)
    ratio = torch.exp(logprobs - old_logprobs)  # (B, T)
    advantage = advantages.to(logprobs.dtype)[:, None]  # (B, 1)
    unclipped = ratio * advantage
    clipped = torch.clamp(ratio, 1 - clip_epsilon, 1 + clip_epsilon) * advantage
    per_token = -torch.minimum(unclipped, clipped)
    policy = (per_token * mask).sum() / token_budget
    loss = policy
    kl_value = 0.0
    if ref_logprobs is not None and kl_beta > 0:
        difference = ref_logprobs - logprobs
        k3 = torch.exp(difference) - difference - 1
        kl = (k3 * mask).sum() / token_budget
        loss = loss + kl_beta * kl
        kl_value = float(kl.detach())
    tokens = int(mask.sum())
    was_clipped = ((ratio - 1).abs() > clip_epsilon).to(mask.dtype) * mask
    return LossTerms(
        loss=loss,
        policy=float(policy.detach()),
        kl=kl_value,
        clip_fraction=float(was_clipped.sum()) / max(tokens, 1),
        tokens=tokens,
    )
