"""The training run configuration: every field documented, stored verbatim with the run."""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from rewards.typed import checked_values


@dataclass
class TrainConfig:
    model: str = "tiny"
    """"tiny": the built-in small model made from a config (CPU), or a local path to a
    transformers causal LM (no download anywhere)."""
    reward_config: str = "binary-top30"
    """Name of a stored reward configuration (Rewards page); the paper's best is binary-top30."""
    group_size: int = 16
    """G: samples per prompt (paper: 16; more helps sparse rewards)."""
    prompts_per_step: int = 4
    """P: prompts per optimizer step."""
    learning_rate: float = 1e-5
    """AdamW learning rate."""
    token_budget: int = 32_768
    """The loss is summed over tokens and divided by this constant, not by each sample's
    length (paper, section 4: 32,768)."""
    max_staleness_steps: int = 30
    """Rollouts made by a policy more than this many steps behind are dropped (paper: 30)."""
    clip_epsilon: float = 0.2
    """PPO ratio clipping ε."""
    inner_epochs: int = 1
    """μ: passes over each batch of rollouts per step."""
    kl_beta: float = 0.0
    """β: weight of the KL penalty to the reference policy (0: none, the paper's default)."""
    token_weighted_baseline: bool = True
    """Baseline = the token-weighted mean of the group's rewards (paper); False: plain mean."""
    normalize_std: bool = False
    """Divide advantages by the group's reward standard deviation (standard RLVR; the paper
    drops it because it amplifies timing noise)."""
    tie_band: float = 5.0
    """Percentile points: an all-correct group whose speed percentiles span at most this is
    "all correct, tied" (speed differences within timing noise)."""
    steps: int = 100
    """Optimizer steps."""
    max_minutes: float = 0.0
    """Stop (finished, with a checkpoint) after this many minutes of training; 0: no limit."""
    checkpoint_every: int = 10
    """Steps between checkpoints (a re-delivered task resumes from the last one)."""
    max_new_tokens: int = 512
    """Longest completion; a longer one is truncated (and counted)."""
    temperature: float = 1.0
    """Sampling temperature for rollouts."""
    seed: int = 0
    scoring: str = "timing_queue"
    """timing_queue: programs are measured by the timing workers (the product); local: in a
    thread of the training process (one machine, tests)."""
    baseline_program: bool = False
    """Put the problem's slowest correct Python reference in the prompt, to be made faster
    (the paper's optimization setting); off: the statement alone."""
    split: str = "train"
    """Problems trained on: train, test or all (those with stored reference runtimes)."""
    max_problems: int = 0
    """At most this many problems (the first by slug); 0: all."""
    warm_start_steps: int = 300
    """Supervised steps on the problems' reference solutions before RL (the tiny model only:
    it must write valid programs before a reward can tell them apart)."""
    warm_start_learning_rate: float = 3e-3

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        """A checked config; a bad value raises ValueError naming its field."""
        defaults = cls()
        kinds = {f.name: type(getattr(defaults, f.name)) for f in fields(cls)}
        values = checked_values(data, kinds, frozenset())
        config = cls(**values)
        config.check()
        return config

    @classmethod
    def from_form(cls, text: dict[str, str]) -> TrainConfig:
        """A checked config from a form's text values (empty: the default; a checkbox sends
        "on" when ticked); ValueError naming the field."""
        defaults = cls()
        data: dict = {}
        for name, raw in text.items():
            if name not in {f.name for f in fields(cls)}:
                raise ValueError(f"{name}: unknown field")
            kind, value = type(getattr(defaults, name)), str(raw).strip()
            if kind is bool:
                data[name] = value in ("on", "true", "1")
            elif value == "":
                continue
            elif kind is str:
                data[name] = value
            else:
                try:
                    data[name] = kind(value)
                except ValueError:
                    noun = "a whole number" if kind is int else "a number"
                    raise ValueError(f"{name}: {value!r} is not {noun}") from None
        return cls.from_dict(data)

    @classmethod
    def from_toml(cls, path: Path) -> TrainConfig:
        try:
            data = tomllib.loads(Path(path).read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(f"config: cannot read {path}: {exc}") from None
        return cls.from_dict(data)

    def check(self) -> None:
        minimums = {
            "group_size": 2,  # one sample has nothing to be compared with
            "prompts_per_step": 1,
            "token_budget": 1,
            "inner_epochs": 1,
            "steps": 1,
            "checkpoint_every": 1,
            "max_new_tokens": 1,
            "max_staleness_steps": 0,
        }
        for name, low in minimums.items():
            if getattr(self, name) < low:
                raise ValueError(f"{name}: must be at least {low}")
        if not self.learning_rate > 0:
            raise ValueError("learning_rate: must be > 0")
        if not 0 < self.clip_epsilon < 1:
            raise ValueError("clip_epsilon: must be in (0, 1)")
        if self.kl_beta < 0:
            raise ValueError("kl_beta: must be >= 0")
        if self.tie_band < 0:
            raise ValueError("tie_band: must be >= 0")
        if not self.temperature > 0:
            raise ValueError("temperature: must be > 0")
        if self.scoring not in ("timing_queue", "local"):
            raise ValueError(f"scoring: {self.scoring!r} is not one of timing_queue, local")
        if self.split not in ("train", "test", "all"):
            raise ValueError(f"split: {self.split!r} is not one of train, test, all")
        if self.max_minutes < 0:
            raise ValueError("max_minutes: must be >= 0 (0: no limit)")
        if self.max_problems < 0 or self.warm_start_steps < 0:
            raise ValueError("max_problems/warm_start_steps: must be >= 0")
        if not self.warm_start_learning_rate > 0:
            raise ValueError("warm_start_learning_rate: must be > 0")

    def as_dict(self) -> dict:
        return asdict(self)
