"""A few steps of the real loop on one small problem, without a database: the GPU check
(scripts/gpu_train_steps.py) and the training tests use it. Plain Python + torch."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from execution.engine import Case, Program, measure
from execution.samples import FAST, MIDDLE, SLOW
from rewards.engine import ProblemRuntimes, RewardConfig
from scoring.scorer import ScoringProblem
from training.config import TrainConfig
from training.loop import LocalScorer, Trainer, TrainingProblem
from training.policy import TINY, TinyModelConfig, load_policy, tiny_model, train_tokenizer
from training.rollout import make_prompt
from training.update import warm_start

STATEMENT = "Read n, then n integers. Print their sum."


def sum_scoring_problem(root: Path, n: int = 200_000) -> ScoringProblem:
    """ "Sum the numbers" with one large optimization test, its human references (three
    Python programs of clearly different speed) measured here and now."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "small.in").write_text("3\n1 2 3\n")
    (root / "small.ans").write_text("6\n")
    (root / "big.in").write_text(f"{n}\n" + " ".join(["7"] * n) + "\n")
    (root / "big.ans").write_text(f"{7 * n}\n")
    big = Case("big", root / "big.in", root / "big.ans", "optimization")
    references = (("fast", FAST), ("middle", MIDDLE), ("slow", SLOW))
    reports = measure(
        [Program(name, code, "python") for name, code in references], [big], repeats=1
    )
    costs = np.array([[reports[name].tests[0].cpu_s] for name, _ in references])
    return ScoringProblem(
        "sum",
        ProblemRuntimes(costs, np.array([n * 2]), np.array([8])),
        [Case("small", root / "small.in", root / "small.ans")],
        [big],
        cap_s=10.0,
    )


def sum_training_problem(root: Path) -> TrainingProblem:
    return TrainingProblem("sum", make_prompt(STATEMENT), sum_scoring_problem(root))


def warmed_tiny_policy(steps: int = 150, config: TinyModelConfig | None = None):
    """A tiny model that mostly writes FAST or SLOW for the sum prompt."""
    prompt = make_prompt(STATEMENT)
    tokenizer = train_tokenizer([prompt, FAST, SLOW], vocab_size=300)
    model = tiny_model(tokenizer, config or TinyModelConfig(n_layer=1, n_head=2, n_embd=32))
    warm_start(
        model,
        tokenizer,
        [(prompt, FAST), (prompt, SLOW)],
        steps=steps,
        learning_rate=3e-3,
        batch_size=4,
    )
    return model, tokenizer


class PrintingSink:
    def __init__(self):
        self.metrics: dict[int, dict[str, float]] = {}

    def log(self, step: int, metrics: dict[str, float]) -> None:
        self.metrics[step] = metrics
        keys = ("rewards/mean", "eval/p100", "eval/p50", "losses/policy", "time/step_s")
        print(f"step {step}: " + ", ".join(f"{k} {metrics.get(k, float('nan')):.3f}" for k in keys))

    def samples(self, step: int, rows) -> None:
        pass

    def should_stop(self) -> bool:
        return False


def run_smoke(model_path: str, steps: int, workdir: Path, warm_start_steps: int = 300) -> dict:
    """`steps` steps of the loop on the sum problem with the model at `model_path` ("tiny":
    built and warmed up here); returns what ran where, and each step's metrics."""
    if model_path == TINY:
        model, tokenizer = warmed_tiny_policy(warm_start_steps, TinyModelConfig())
        model = model.to("cuda" if torch.cuda.is_available() else "cpu")
    else:
        model, tokenizer = load_policy(model_path)
    config = TrainConfig(
        model=model_path,
        group_size=8,
        prompts_per_step=1,
        steps=steps,
        max_new_tokens=128,
        learning_rate=1e-5 if model_path != TINY else 3e-4,
        checkpoint_every=steps,
    )
    sink = PrintingSink()
    started = time.monotonic()
    trainer = Trainer(
        config,
        model,
        tokenizer,
        [sum_training_problem(workdir / "problem")],
        LocalScorer(RewardConfig("binary-top50", speed_bar=50)),
        sink,
        workdir / "checkpoints",
    )
    trainer.run()
    parameter = next(model.parameters())
    return {
        "device": str(parameter.device),
        "dtype": str(parameter.dtype),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "steps": len(sink.metrics),
        "seconds": round(time.monotonic() - started, 1),
        "metrics": sink.metrics,
    }
