"""A scoring problem for the training tests: "sum the numbers", with human references
measured on this machine, and a tiny policy warmed up to write its programs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rewards.engine import ProblemRuntimes
from tests.pipeline_problems import MIDDLE
from workers.execution.engine import Case, Program, measure
from workers.execution.samples import FAST, SLOW
from workers.training.loop import TrainingProblem
from workers.training.policy import TinyModelConfig, tiny_model, train_tokenizer
from workers.training.rollout import make_prompt
from workers.training.scoring import ScoringProblem
from workers.training.update import warm_start

STATEMENT = "Read n, then n integers. Print their sum."
TINY = TinyModelConfig(n_layer=1, n_head=2, n_embd=32, n_positions=256)


def sum_scoring_problem(root: Path, n: int = 200_000) -> ScoringProblem:
    root.mkdir(parents=True, exist_ok=True)
    (root / "small.in").write_text("3\n1 2 3\n")
    (root / "small.ans").write_text("6\n")
    (root / "big.in").write_text(f"{n}\n" + " ".join(["7"] * n) + "\n")
    (root / "big.ans").write_text(f"{7 * n}\n")
    big = Case("big", root / "big.in", root / "big.ans", "optimization")
    references = (("f", FAST), ("m", MIDDLE), ("s", SLOW))
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


def warmed_tiny_policy(steps: int = 150):
    """A tiny model that mostly writes FAST or SLOW for the sum prompt."""
    prompt = make_prompt(STATEMENT)
    tokenizer = train_tokenizer([prompt, FAST, SLOW], vocab_size=300)
    model = tiny_model(tokenizer, TINY)
    warm_start(
        model,
        tokenizer,
        [(prompt, FAST), (prompt, SLOW)],
        steps=steps,
        learning_rate=3e-3,
        batch_size=4,
    )
    return model, tokenizer


def sum_training_problem(root: Path) -> TrainingProblem:
    return TrainingProblem("sum", make_prompt(STATEMENT), sum_scoring_problem(root))
