"""The training run configuration: every field documented, stored verbatim with the run."""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

from execution.degraded import DegradedTiming
from foundation.typed import bounded, load_config, within_bounds
from lm.base_models import TINY

REQUIRED_HINTS = {
    "model": "'smollm2-135m-instruct', a pretrained instruct model installed with the project, "
    f"'{TINY}', the built-in small model, or the folder of a local transformers checkpoint under "
    "the model roots",
}
"""What an empty form field should have held, where the default says too little."""
OPTIONAL_ON_FORMS = ("bool", bool, "tuple[str, ...]")
"""Form fields that may be left empty: a checkbox (unticked sends nothing) and a list whose
emptiness means "all" (`problems`)."""


@dataclass
class TrainConfig:
    model: str = "tiny"
    """"tiny": the built-in small model made from a config (CPU, fast checks); a named base
    model ("smollm2-135m-instruct": pretrained, instruction-tuned, installed from the package
    registry, lm/base_models.py); or a local path to a transformers causal LM
    (no download anywhere)."""
    reward_config: str = "binary-top30"
    """Name of a stored reward configuration (Rewards page); the paper's best is binary-top30."""
    group_size: int = bounded(16, 2, 1024)
    """G: samples per prompt (paper: 16; more helps sparse rewards)."""
    prompts_per_step: int = bounded(4, 1, 1024)
    """P: prompts per optimizer step."""
    learning_rate: float = bounded(1e-5, 0, 1)
    """AdamW learning rate."""
    token_budget: int = bounded(32_768, 1, 10_000_000)
    """The loss is summed over tokens and divided by this constant, not by each sample's
    length (paper, section 4: 32,768)."""
    max_staleness_steps: int = bounded(30, 0, 1_000_000)
    """Rollouts made by a policy more than this many steps behind are dropped (paper: 30)."""
    clip_epsilon: float = bounded(0.2, 0, 1)
    """PPO ratio clipping ε."""
    inner_epochs: int = bounded(1, 1, 64)
    """μ: passes over each batch of rollouts per step."""
    kl_beta: float = bounded(0.0, 0, 100)
    """β: weight of the KL penalty to the reference policy (0: none, the paper's default)."""
    token_weighted_baseline: bool = True
    """Baseline = the token-weighted mean of the group's rewards (paper); False: plain mean."""
    normalize_std: bool = False
    """Divide advantages by the group's reward standard deviation (standard RLVR; the paper
    drops it because it amplifies timing noise)."""
    tie_band: float = bounded(5.0, 0, 100)
    """Percentile points: an all-correct group whose speed percentiles span at most this is
    "all correct, tied" (speed differences within timing noise)."""
    degraded_timing_cv: float = bounded(0.0, 0, 1)
    """Experiments only (paper, section 5: a deliberately degraded sandbox): multiplicative
    log-normal noise of this CV on every measured cost, programs and references alike,
    before ranking (one unpinned run on a shared host varied by a CV of 0.20-0.45:
    docs/benchmarks.md); 0: the timing service as it is. The run is tagged degraded-timing."""
    degraded_slowdown_rate: float = bounded(0.0, 0, 1)
    """Experiments only: the probability that a measured cost is also slowed x1.5-x3, as a
    busy neighbour slows one run (execution/degraded.py); 0: none. Repeatable from
    (seed, step)."""
    steps: int = bounded(100, 1, 1_000_000)
    """Optimizer steps."""
    max_minutes: float = bounded(0.0, 0, 525_600)
    """Stop (finished, with a checkpoint) after this many minutes of training; 0: no limit."""
    checkpoint_every: int = bounded(10, 1, 1_000_000)
    """Steps between checkpoints (a re-delivered task resumes from the last one)."""
    max_new_tokens: int = bounded(512, 1, 32_768)
    """Longest completion; a longer one is truncated (and counted)."""
    temperature: float = bounded(1.0, 0, 10)
    """Sampling temperature for rollouts."""
    seed: int = bounded(0, 0, 2**31 - 1)
    """Seeds the policy's initialisation, the sampler and the problem order: a run is
    repeatable from its stored config."""
    scoring: str = "timing_queue"
    """timing_queue: programs are measured by the timing workers (the product); local: in a
    thread of the training process (one machine, tests)."""
    baseline_program: bool = False
    """Put the problem's slowest correct Python reference in the prompt, to be made faster
    (the paper's optimization setting); off: the statement alone."""
    split: str = "train"
    """Problems trained on: train, test or all (those with stored reference runtimes)."""
    problems: tuple[str, ...] = ()
    """Only these problems (slugs) of the split; empty: every built one."""
    max_problems: int = bounded(0, 0, 1_000_000)
    """At most this many problems (the first by slug); 0: all."""
    trainable_layers: int = bounded(0, 0, 1000)
    """Train only the last N transformer blocks (and the final norm); 0: every parameter.
    The backward pass stops at the first trained block and AdamW keeps no state for the
    rest: SmolLM2's last 4 of 30 blocks train in 3.2 GB instead of 7.5 on CPU
    (benchmarks/real_model_speed.py, docs/benchmarks.md, "One GRPO step")."""
    warm_start_steps: int = bounded(300, 0, 1_000_000)
    """Supervised steps on the problems' reference solutions before RL (the tiny model only:
    it must write valid programs before a reward can tell them apart)."""
    warm_start_learning_rate: float = bounded(3e-3, 0, 1)
    """The warm start's learning rate (supervised: higher than RL's)."""

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        """A checked config; a bad value raises ValueError naming its field."""
        return load_config(cls, data)

    @classmethod
    def from_form(cls, text: dict[str, str]) -> TrainConfig:
        """A checked config from a form's text values; ValueError naming the field. Every
        field but a checkbox (it sends "on" when ticked, nothing when not) must be filled
        in: an empty one is an error, never silently the default (a run started with a
        model nobody chose); but OPTIONAL_ON_FORMS."""
        for field in dataclasses.fields(cls):
            if field.type in OPTIONAL_ON_FORMS or str(text.get(field.name, "")).strip():
                continue
            hint = REQUIRED_HINTS.get(field.name, f"the default is {field.default!r}")
            raise ValueError(f"{field.name}: required ({hint})")
        return load_config(cls, text, text=True)

    @classmethod
    def from_toml(cls, path: Path) -> TrainConfig:
        try:
            data = tomllib.loads(Path(path).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"config: cannot read {path}: {exc}") from None
        return cls.from_dict(data)

    def check(self) -> None:
        """The rules the fields' bounds cannot say (open intervals, choices)."""
        within_bounds(self)
        for name in ("learning_rate", "clip_epsilon", "temperature", "warm_start_learning_rate"):
            value = getattr(self, name)
            if value == 0 or (name == "clip_epsilon" and value == 1):
                raise ValueError(f"{name}: must be strictly inside its bounds, not {value}")
        if self.scoring not in ("timing_queue", "local"):
            raise ValueError(f"scoring: {self.scoring!r} is not one of timing_queue, local")
        if self.split not in ("train", "test", "all"):
            raise ValueError(f"split: {self.split!r} is not one of train, test, all")

    def as_dict(self) -> dict:
        return asdict(self)

    def form_values(self) -> dict:
        """The fields as the Training form shows them: text, a list comma-separated (a
        checkbox's value stays a bool)."""
        return {
            name: value if isinstance(value, bool)
            else ", ".join(map(str, value)) if isinstance(value, tuple)
            else str(value)
            for name, value in self.as_dict().items()
        }  # fmt: skip

    def degraded_timing(self) -> DegradedTiming:
        """The deliberate degradation of the run's timing (inactive at 0/0), seeded by the
        run's seed."""
        return DegradedTiming(self.degraded_timing_cv, self.degraded_slowdown_rate, self.seed)


DEGRADED_TIMING_TAG = "degraded-timing"
"""The tag of a run trained with a degraded timing service (TrainConfig.degraded_timing)."""


def stored_degraded_timing(config: dict) -> DegradedTiming:
    """The degradation of a run from its stored config (older runs and runs trained
    elsewhere have none: inactive)."""
    return DegradedTiming(
        float(config.get("degraded_timing_cv") or 0.0),
        float(config.get("degraded_slowdown_rate") or 0.0),
        int(config.get("seed") or 0),
    )
