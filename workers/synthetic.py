"""A synthetic replay of a GRPO run's metrics: the demo's live dashboard from its first
second, while its real GRPO runs wait for their dataset build.

Plain Python. The curves follow the shapes the paper reports (section 4): the all-negative
group rate starts near 45% and falls, the mean reward and p50/p30 rise, p100 stays flat;
the numbers are invented. One NaN in `losses/policy` shows how the charts mark a NaN.
"""

from __future__ import annotations

import math
import random

SYNTHETIC_NOTE = (
    "SYNTHETIC REPLAY: invented curves shaped like the paper's, not a real training run. "
    "It fills the live dashboard from the demo's first second; the demo's real GRPO runs "
    "(SmolLM2-135M-Instruct, paper vs RLVR) start once its dataset build and reward simulation "
    "are done."
)


def synthetic_step(step: int, total_steps: int, rng: random.Random) -> dict[str, float]:
    progress = step / max(1, total_steps - 1)
    noise = lambda scale: rng.gauss(0.0, scale)  # noqa: E731
    all_negative = max(0.0, 0.45 - 0.25 * progress + noise(0.03))
    all_positive = min(1.0, 0.05 + 0.15 * progress + abs(noise(0.02)))
    p50 = 0.18 + 0.13 * (1 - math.exp(-3 * progress)) + noise(0.01)
    metrics = {
        "rewards/mean": -0.6 + 0.5 * progress + noise(0.05),
        "rewards/std": 0.8 - 0.1 * progress + noise(0.02),
        "groups/all_negative": all_negative,
        "groups/all_positive": all_positive,
        "groups/mixed": max(0.0, 1.0 - all_negative - all_positive),
        "eval/p100": 0.55 + noise(0.01),
        "eval/p50": p50,
        "eval/p30": 0.137 + 0.17 * (1 - math.exp(-3 * progress)) + noise(0.01),
        "losses/policy": 0.05 * math.exp(-2 * progress) + noise(0.005),
        "losses/entropy": 1.2 - 0.4 * progress + noise(0.02),
        "timing/rank_jitter": 2.0 + abs(noise(0.5)),
        "sandbox/verdict_tle": max(0.0, 0.3 - 0.2 * progress + noise(0.02)),
    }
    if step == total_steps // 3:
        metrics["losses/policy"] = math.nan
    return metrics
