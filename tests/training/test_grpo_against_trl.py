"""Our GRPO loss (training/loss.py) against TRL's, the reference implementation: the
loss value and its gradient on many random padded batches, with and without KL.

TRL's code runs, not a re-derivation of it: `GRPOTrainer._compute_loss` is called on a
trainer object that skips `__init__` and carries only the attributes `_compute_loss` reads,
set from a real `GRPOConfig` as `__init__` sets them. The model's forward pass is the one
piece replaced: it hands `_compute_loss` the batch's per-token log-probabilities.

How the two map:
- `loss_type="dr_grpo"` is TRL's constant-normalised loss, Σ_it mask·ℓ_it / (B · L_max) with
  L_max = `max_completion_length`. Ours is Σ_it mask·ℓ_it / token_budget (eq. 4). Both are one
  constant for every token; with our token_budget = 32,768 and B samples, TRL's
  max_completion_length = 32,768 / B makes it the same constant. (Ours stays 32,768 whatever
  the batch size; TRL's scales with B.)
- `scale_rewards="none"`: no division by the group's std (ours by default; eq. 2).
- `epsilon` is our `clip_epsilon`, `beta` our `kl_beta`; the KL term is k3 = exp(d) - d - 1,
  d = log π_ref - log π, on both sides (eq. 5).
- `use_bias_correction_kl=False`: TRL 1.x multiplies k3 by the ratio ρ by default (an
  importance correction for tokens sampled by π_old); eq. 5 is the plain k3. At ρ = 1 the two
  agree in value but not in gradient.
"""

from __future__ import annotations

import random
from collections import defaultdict
from types import SimpleNamespace

import pytest
import torch
from accelerate import Accelerator
from trl import GRPOConfig, GRPOTrainer
from trl.trainer.utils import entropy_from_logits, nanstd, selective_log_softmax

from training.advantages import group_advantages
from training.loss import policy_loss
from training.rollout import token_logprobs

# TRL's GRPOConfig sets a TrainingArguments field that transformers 5 renamed
pytestmark = pytest.mark.filterwarnings("ignore:`gradient_checkpointing` is deprecated")

TOKEN_BUDGET = 32_768  # our default (paper, section 4)
BATCHES = 300


class OneBatchTrainer(GRPOTrainer):
    """GRPOTrainer's real `_compute_loss`, on given per-token log-probabilities."""

    def __init__(self, args: GRPOConfig, per_token_logps=None, completion_logits=None):
        # what GRPOTrainer.__init__ sets from `args` that `_compute_loss` reads
        self.args = args
        self.beta = args.beta
        self.loss_type = args.loss_type
        self.epsilon_low = args.epsilon
        self.epsilon_high = args.epsilon_high if args.epsilon_high is not None else args.epsilon
        self.max_completion_length = args.max_completion_length
        self.temperature = args.temperature
        self.importance_sampling_level = args.importance_sampling_level
        self.off_policy_mask_threshold = args.off_policy_mask_threshold
        self.top_entropy_quantile = args.top_entropy_quantile
        self.use_vllm = args.use_vllm
        self.vllm_importance_sampling_correction = args.vllm_importance_sampling_correction
        self.entropy_coef = args.entropy_coef
        self.use_adaptive_entropy = args.use_adaptive_entropy
        self._entropy_bonus_enabled = self.entropy_coef != 0.0 or self.use_adaptive_entropy
        self.aux_loss_enabled = False  # not a mixture-of-experts model
        self.current_gradient_accumulation_steps = 1
        self.accelerator = Accelerator(cpu=True)
        self.model = torch.nn.Module()  # .training is True: TRL's "train" mode
        self._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}
        self.per_token_logps, self.completion_logits = per_token_logps, completion_logits

    def _get_per_token_logps_and_entropies(
        self, model, input_ids, attention_mask, logits_to_keep, compute_entropy=False, **_
    ):
        if self.completion_logits is None:
            logps = self.per_token_logps  # (B, T)
            return logps, torch.zeros_like(logps.detach()), None
        # TRL's own log-softmax at the sampling temperature, on the logits of each
        # completion token (B, T, V)
        completion_ids = input_ids[:, -logits_to_keep:]
        logps = selective_log_softmax(self.completion_logits, completion_ids, self.temperature)
        entropies = entropy_from_logits(self.completion_logits.detach() / self.temperature)
        return logps, entropies, None


def trl_config(tmp_path, batch: int, beta: float, epsilon: float, temperature: float = 1.0):
    return GRPOConfig(
        output_dir=str(tmp_path),
        report_to=[],
        use_cpu=True,
        loss_type="dr_grpo",
        scale_rewards="none",
        beta=beta,
        epsilon=epsilon,
        use_bias_correction_kl=False,
        max_completion_length=TOKEN_BUDGET // batch,  # B · L_max = our token budget
        temperature=temperature,
    )


def random_batch(rng: random.Random, generator: torch.Generator):
    """A padded batch: B samples of random lengths 0..T (right-padded), log-probabilities
    with ratios on both sides of the clip range, advantages of both signs and some zero."""
    batch, width = rng.choice([1, 2, 4, 8, 16]), rng.randint(1, 24)
    lengths = torch.tensor([rng.randint(0, width) for _ in range(batch)])
    mask = (torch.arange(width)[None, :] < lengths[:, None]).long()  # (B, T)
    logps = -torch.rand(batch, width, generator=generator, dtype=torch.float64) * 6  # (B, T)
    old = logps + 0.3 * torch.randn(batch, width, generator=generator, dtype=torch.float64)
    ref = logps + 0.5 * torch.randn(batch, width, generator=generator, dtype=torch.float64)
    advantages = torch.randn(batch, generator=generator, dtype=torch.float64)
    advantages[torch.rand(batch, generator=generator) < 0.2] = 0.0
    return SimpleNamespace(mask=mask, logps=logps, old=old, ref=ref, advantages=advantages)


def trl_inputs(batch, completion_ids=None) -> dict:
    width = batch.mask.shape[1]
    rows = batch.mask.shape[0]
    return {
        "prompt_ids": torch.ones(rows, 1, dtype=torch.long),  # read only to be concatenated
        "prompt_mask": torch.ones(rows, 1, dtype=torch.long),
        "completion_ids": (
            torch.zeros(rows, width, dtype=torch.long) if completion_ids is None else completion_ids
        ),
        "completion_mask": batch.mask,
        "advantages": batch.advantages,
        "old_per_token_logps": batch.old,
        "ref_per_token_logps": batch.ref,
    }


@pytest.mark.parametrize("beta", [0.0, 0.04, 0.5])
def test_our_loss_and_its_gradient_match_trls_dr_grpo_loss_on_random_padded_batches(tmp_path, beta):
    rng, generator = random.Random(beta), torch.Generator().manual_seed(int(beta * 100))
    worst_loss = worst_grad = worst_kl = 0.0
    for _ in range(BATCHES):
        batch = random_batch(rng, generator)
        epsilon = rng.choice([0.1, 0.2, 0.28])
        config = trl_config(tmp_path, batch.mask.shape[0], beta, epsilon)

        theirs_logps = batch.logps.clone().requires_grad_()
        trainer = OneBatchTrainer(config, per_token_logps=theirs_logps)
        theirs = trainer._compute_loss(None, trl_inputs(batch))
        theirs.backward()

        ours_logps = batch.logps.clone().requires_grad_()
        ours = policy_loss(
            ours_logps,
            batch.old,
            batch.advantages,
            batch.mask,
            token_budget=TOKEN_BUDGET,
            clip_epsilon=epsilon,
            ref_logprobs=batch.ref,
            kl_beta=beta,
        )
        ours.loss.backward()

        worst_loss = max(worst_loss, abs(float(ours.loss.detach() - theirs.detach())))
        worst_grad = max(worst_grad, float((ours_logps.grad - theirs_logps.grad).abs().max()))
        if beta > 0 and ours.tokens and batch.mask.shape[1] > 1:
            # TRL logs the mean k3 per real token; ours is Σ k3 / budget. (With completions
            # one token wide TRL's log reads the (B, 1) tensor as one value per sequence and
            # averages padding in: its loss is right, its logged KL is not.)
            mean_kl = ours.kl * TOKEN_BUDGET / ours.tokens
            worst_kl = max(worst_kl, abs(mean_kl - trainer._metrics["train"]["kl"][-1]))
    # float64 throughout: the losses are ~1e-4 and their gradients ~1e-5 per token
    assert worst_loss < 1e-15 and worst_grad < 1e-15 and worst_kl < 1e-12, (
        worst_loss,
        worst_grad,
        worst_kl,
    )


class FixedLogits(torch.nn.Module):
    """A causal LM whose logits are fixed: `logits` (B, L, V) whatever the input."""

    def __init__(self, logits: torch.Tensor):
        super().__init__()
        self.anchor = torch.nn.Parameter(torch.zeros(()))  # token_logprobs reads the device
        self.logits = logits

    def forward(self, input_ids, attention_mask):
        return SimpleNamespace(logits=self.logits)


def our_layout(mask, completion_ids, completion_logits, prompt_lengths: list[int]):
    """The batch as encode_batch lays it out: prompt then completion in one right-padded
    row. Returns input_ids and completion_mask (B, L), and logits (B, L, V) in which position
    p predicts token p + 1: completion token t of a row whose prompt is `start` tokens long
    sits at column start + t and reads the logits at column start + t - 1."""
    rows, width = mask.shape
    lengths = mask.sum(dim=1).tolist()
    total = max(p + c for p, c in zip(prompt_lengths, lengths, strict=True)) + 1
    input_ids = torch.zeros(rows, total, dtype=torch.long)
    completion_mask = torch.zeros(rows, total, dtype=torch.long)
    column = torch.zeros(rows, width, dtype=torch.long)  # (B, T): our column of token t
    for row, (start, length) in enumerate(zip(prompt_lengths, lengths, strict=True)):
        input_ids[row, start : start + length] = completion_ids[row, :length]
        completion_mask[row, start : start + length] = 1
        column[row, :length] = torch.arange(start, start + length)
    real = mask.bool()
    row_of = torch.arange(rows)[:, None].expand(rows, width)
    logits = torch.zeros(rows, total, completion_logits.shape[-1]).index_put(
        (row_of[real], (column - 1)[real]), completion_logits[real]
    )
    return input_ids, completion_mask, logits


def placed(values, mask, completion_mask):
    """(B, T) values of completion tokens moved to their (B, L) columns of our layout."""
    out = torch.zeros(completion_mask.shape, dtype=torch.float32)
    out[completion_mask.bool()] = values[mask.bool()].float()
    return out


@pytest.mark.parametrize("beta", [0.0, 0.1])
def test_from_logits_our_log_probabilities_and_loss_match_trls(tmp_path, beta):
    """The same per-token logits laid out twice: ours as encode_batch does (`our_layout`,
    prompts of different lengths), TRL's as completion-only rows. The gradient is taken with
    respect to those shared logits, through each side's own log-softmax at the sampling
    temperature (float32, as token_logprobs computes)."""
    rng, generator = random.Random(7), torch.Generator().manual_seed(7)
    vocab, temperature = 11, 0.7
    worst_loss = worst_grad = 0.0
    for _ in range(40):
        batch = random_batch(rng, generator)
        rows, width = batch.mask.shape
        completion_ids = torch.randint(1, vocab, (rows, width), generator=generator)
        shared = torch.randn(rows, width, vocab, generator=generator).requires_grad_()

        prompt_lengths = [rng.randint(1, 5) for _ in range(rows)]
        input_ids, completion_mask, logits = our_layout(
            batch.mask, completion_ids, shared, prompt_lengths
        )
        logprobs, _ = token_logprobs(FixedLogits(logits), input_ids, completion_mask, temperature)
        ours = policy_loss(
            logprobs,
            placed(batch.old, batch.mask, completion_mask),
            batch.advantages,
            completion_mask,
            token_budget=TOKEN_BUDGET,
            ref_logprobs=placed(batch.ref, batch.mask, completion_mask),
            kl_beta=beta,
        )
        ours_grad = torch.autograd.grad(ours.loss, shared)[0]

        float32 = SimpleNamespace(**{k: v.float() for k, v in vars(batch).items() if k != "mask"})
        float32.mask = batch.mask
        config = trl_config(tmp_path, rows, beta, 0.2, temperature)
        trainer = OneBatchTrainer(config, completion_logits=shared)
        theirs = trainer._compute_loss(None, trl_inputs(float32, completion_ids))
        theirs_grad = torch.autograd.grad(theirs, shared)[0]

        scale = max(float(theirs.detach().abs()), 1e-12)
        worst_loss = max(worst_loss, float((ours.loss - theirs).detach().abs()) / scale)
        grad_scale = max(float(theirs_grad.abs().max()), 1e-12)
        worst_grad = max(worst_grad, float((ours_grad - theirs_grad).abs().max()) / grad_scale)
    # relative: a few float32 roundings (the two log-softmaxes sum in different orders)
    assert worst_loss < 1e-5 and worst_grad < 1e-5, (worst_loss, worst_grad)


def test_our_advantages_are_trls_scale_rewards_none_ones_up_to_the_baseline():
    """TRL (scale_rewards="none", one reward function) computes, inline in
    `_generate_and_score_completions`:

        mean_grouped_rewards = torch.nanmean(rewards.view(-1, G), dim=1)
        advantages = rewards - mean_grouped_rewards.repeat_interleave(G)  # no std division

    a plain group mean, so Σ_i A_i = 0 in each group. Ours (paper, eq. 1) weights the
    baseline by completion length, so Σ_i L_i·A_i = 0: a long sample's L_i tokens weigh in
    the loss as many times (eq. 4), and the group's total push is zero whatever the lengths.
    What is comparable: our plain-mean option is TRL's exactly; with equal lengths the
    token-weighted baseline is too; with unequal lengths the two differ by one constant per
    group (the two baselines' gap), never in the order of the samples. (There is no TRL
    function to call for this: the two lines above sit in a 300-line method that samples
    and scores completions.)"""
    generator = torch.Generator().manual_seed(3)
    groups, size = 64, 8
    rewards = torch.randn(groups, size, generator=generator, dtype=torch.float64)
    rewards[::4] = torch.where(rewards[::4] > 0, 1.0, -1.0)  # binary groups, some tied
    lengths = torch.randint(1, 500, (groups, size), generator=generator)
    flat = rewards.flatten()
    trl = (flat - torch.nanmean(flat.view(-1, size), dim=1).repeat_interleave(size)).view(
        groups, size
    )
    trl_std = nanstd(flat.view(-1, size), dim=1)

    plain = group_advantages(rewards, lengths, token_weighted_baseline=False)
    assert float((plain - trl).abs().max()) < 1e-15
    equal = group_advantages(rewards, torch.full_like(lengths, 40))
    assert float((equal - trl).abs().max()) < 1e-15
    weighted = group_advantages(rewards, lengths)
    gap = weighted - trl  # (P, G): the same number across each group
    assert float((gap - gap[:, :1]).abs().max()) < 1e-14
    assert float((weighted * lengths).sum(dim=1).abs().max()) < 1e-10
    assert float(trl.sum(dim=1).abs().max()) < 1e-13
    assert float(gap.abs().max()) > 0.01  # the lengths do move the baseline
    # a tied group: TRL's std is 0 (it logs such groups; its loss still takes them), ours
    # are exactly zero advantages
    tied = (rewards == rewards[:, :1]).all(dim=1)
    assert tied.any() and torch.all(trl_std[tied] == 0)
    assert torch.count_nonzero(weighted[tied]) == 0
