"""Group advantages and group kinds (docs/grpo.md, equations 1-2). Plain torch.

Shapes: P prompts (groups) of G samples each; a sample's length is its completion's token
count.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

GROUP_KINDS = ("all_negative", "all_positive", "mixed")


def tied_groups(rewards: torch.Tensor) -> torch.Tensor:
    """(P,) bool: the groups whose G rewards (P, G) are all equal. Read off the rewards
    themselves, with no arithmetic: such a group has no policy gradient, and its advantages
    are exactly zero (a tolerance would have to guess how far apart two real rewards may be;
    0.51 and 0.49 are not a tie)."""
    return rewards.amax(dim=1) == rewards.amin(dim=1)


def group_advantages(
    rewards: torch.Tensor,
    lengths: torch.Tensor,
    *,
    token_weighted_baseline: bool = True,
    normalize_std: bool = False,
    eps: float = 1e-6,
) -> torch.Tensor:
    """(P, G) advantages from rewards (P, G) and completion lengths (P, G).

    1. baseline b = Σ_i len_i · r_i / Σ_i len_i over the group (eq. 1; the plain mean when
       `token_weighted_baseline` is off);
    2. A_i = r_i − b;
    3. only with `normalize_std` (standard RLVR): A_i / (std(r) + eps), the population std of
       the group's rewards (eq. 2). Off by default: it turns a timing-noise difference in an
       otherwise tied group into a full-size advantage;
    4. a tied group (`tied_groups`) gets exactly 0: its baseline need not round back to the
       shared reward (three 0.1s average to 0.10000000000000002), and a 1e-17 "advantage"
       would make the group look as if it taught something.
    """
    rewards = rewards.to(torch.float64)
    if token_weighted_baseline:
        weights = lengths.to(torch.float64).clamp(min=1)  # an empty completion still counts
        baseline = (weights * rewards).sum(dim=1, keepdim=True) / weights.sum(dim=1, keepdim=True)
    else:
        baseline = rewards.mean(dim=1, keepdim=True)
    advantages = rewards - baseline
    if normalize_std:
        advantages = advantages / (rewards.std(dim=1, unbiased=False, keepdim=True) + eps)
    return torch.where(tied_groups(rewards)[:, None], 0.0, advantages)


@dataclass
class GroupCounts:
    """Fractions of the step's groups by outcome: all_negative + all_positive + mixed = 1;
    all_correct_tied is a subset (any of the first two or mixed) counted on its own."""

    all_negative: float
    all_positive: float
    mixed: float
    all_correct_tied: float
    groups: int

    def metrics(self) -> dict[str, float]:
        return {
            "groups/all_negative": self.all_negative,
            "groups/all_positive": self.all_positive,
            "groups/mixed": self.mixed,
            "groups/all_correct_tied": self.all_correct_tied,
        }


def group_counts(
    rewards: torch.Tensor,
    correct: torch.Tensor,
    percentiles: torch.Tensor,
    tie_band: float,
) -> GroupCounts:
    """Count the step's groups by kind. rewards, correct (bool), percentiles (nan where no
    percentile): (P, G).

    - all_negative / all_positive: every sample got the same reward, negative / positive (a
      zero reward counts as negative: it is no credit). No gradient.
    - mixed: the rewards differ. Only these teach.
    - all_correct_tied: every sample correct and their speed percentiles within `tie_band`
      points of each other: their speed differences are within timing noise.
    """
    groups = rewards.shape[0]
    equal = tied_groups(rewards)
    positive = rewards[:, 0] > 0
    filled = torch.nan_to_num(percentiles, nan=torch.inf)
    spread = filled.amax(dim=1) - torch.nan_to_num(percentiles, nan=-torch.inf).amin(dim=1)
    tied = correct.all(dim=1) & torch.isfinite(spread) & (spread <= tie_band)
    return GroupCounts(
        all_negative=float((equal & ~positive).sum()) / groups,
        all_positive=float((equal & positive).sum()) / groups,
        mixed=float((~equal).sum()) / groups,
        all_correct_tied=float(tied.sum()) / groups,
        groups=groups,
    )
