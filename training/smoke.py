"""A few steps of the real loop on one small problem, without a database: the GPU check
(scripts/gpu_train_steps.py) and the training tests use it. Plain Python + torch."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import numpy as np
import torch

from execution.engine import Case, Program, measure
from execution.samples import FAST, MIDDLE, SLOW
from lm.base_models import prompt_style
from problems.function_task import FunctionTask
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


# The same task worded differently: P prompts a step without a database (each its own group,
# all scored against the one measured problem). The tiny model gets the statement (it was
# warmed up on it); a pretrained model gets the task posed as a function, as the demo's
# problems are (problems/function_task.py): the form it solves often enough for a group to
# hold both outcomes, so the update is not skipped.
REWORDED = (
    STATEMENT,
    "The first line holds n; the second holds n integers. Print the total of the integers.",
    "Given a count n and then n whole numbers, output their sum.",
    "Input: n, followed by n integers separated by spaces. Output: the sum of those integers.",
)
FUNCTIONS = (
    ("total", "nums"),
    ("sum_of_list", "values"),
    ("add_all", "numbers"),
    ("list_sum", "items"),
)


def sum_function(name: str, argument: str) -> FunctionTask:
    return FunctionTask.from_dict(
        {
            "name": name,
            "request": f"Write a Python function `{name}({argument})` that returns the sum of "
            f"the integers in the list `{argument}`.",
            "harness": "import sys\n\ndata = sys.stdin.buffer.read().split()\n"
            f"print({name}(list(map(int, data[1 : int(data[0]) + 1]))))\n",
        }
    )


def sum_training_problems(
    root: Path, count: int, style: str = "plain", as_function: bool = False
) -> list[TrainingProblem]:
    """`count` prompts of the sum task in the model's prompt `style`: REWORDED statements,
    or with `as_function` the task posed as FUNCTIONS (cycled)."""
    scoring = sum_scoring_problem(root)
    problems = []
    for i in range(count):
        if as_function:
            task = sum_function(*FUNCTIONS[i % len(FUNCTIONS)])
            prompt = make_prompt(STATEMENT, style=style, function=task)
            problems.append(TrainingProblem(f"sum-{i + 1}", prompt, scoring, task.harness))
        else:
            prompt = make_prompt(REWORDED[i % len(REWORDED)], style=style)
            problems.append(TrainingProblem(f"sum-{i + 1}", prompt, scoring))
    return problems


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


def peak_memory() -> tuple[float, str]:
    """(MiB, what was measured): the CUDA allocator's peak when a GPU holds the model, else
    the process's peak resident size (ru_maxrss: run one measurement per process)."""
    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 2**20, "cuda max_memory_allocated"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "process peak resident"


def run_smoke(
    model_path: str,
    steps: int,
    workdir: Path,
    warm_start_steps: int = 300,
    *,
    dtype: str | None = None,
    prompts: int = 1,
    group_size: int = 8,
    max_new_tokens: int = 128,
    trainable_layers: int = 0,
    cache_root: Path | None = None,
) -> dict:
    """`steps` steps of the loop on the sum task with the model at `model_path` ("tiny":
    built and warmed up here; a named base model, converted under `cache_root`; or a local
    folder), `prompts` prompts × `group_size` samples a step, prompted in the model's own
    format. `dtype` ("float32", "bfloat16"; None: what load_policy picks, bf16 on a GPU).

    Returns what ran where and the speed figures of docs/benchmarks.md: tokens sampled per
    second (every trained batch's completion tokens over the time spent generating them),
    seconds per step (each, and their mean), peak memory (peak_memory()) and how many steps
    skipped their update (every group tied: no backward pass in their seconds); and each
    step's metrics."""
    if model_path == TINY:
        model, tokenizer = warmed_tiny_policy(warm_start_steps, TinyModelConfig())
        model = model.to("cuda" if torch.cuda.is_available() else "cpu")
    else:
        model, tokenizer = load_policy(model_path, cache_root=cache_root)
    if dtype is not None:
        model = model.to(getattr(torch, dtype))
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    config = TrainConfig(
        model=model_path,
        group_size=group_size,
        prompts_per_step=prompts,
        steps=steps,
        max_new_tokens=max_new_tokens,
        learning_rate=1e-5 if model_path != TINY else 3e-4,
        checkpoint_every=steps,
        trainable_layers=trainable_layers,
    )
    problems = sum_training_problems(
        workdir / "problem", prompts, prompt_style(model_path), as_function=model_path != TINY
    )
    sink = PrintingSink()
    started = time.monotonic()
    trainer = Trainer(
        config,
        model,
        tokenizer,
        problems,
        LocalScorer(RewardConfig("binary-top50", speed_bar=50)),
        sink,
        workdir / "checkpoints",
    )
    trainer.run()
    seconds = time.monotonic() - started
    parameter = next(model.parameters())
    per_step = [sink.metrics[s] for s in sorted(sink.metrics)]
    samples_per_step = group_size * min(prompts, len(problems))
    tokens = sum(m["completions/length_mean"] * samples_per_step for m in per_step)
    generate_s = sum(m["time/generate_s"] for m in per_step)
    step_s = [m["time/step_s"] for m in per_step]
    memory_mib, memory_of = peak_memory()
    return {
        "model": model_path,
        "device": str(parameter.device),
        "dtype": str(parameter.dtype).removeprefix("torch."),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "steps": len(sink.metrics),
        "group_size": group_size,
        "prompts": prompts,
        "max_new_tokens": max_new_tokens,
        "trainable_layers": trainable_layers,
        "seconds": round(seconds, 1),
        "tokens_sampled": round(tokens),
        "tokens_per_s": round(tokens / generate_s, 1) if generate_s > 0 else None,
        # the loop samples step k+1 while step k is scored, so the first step carries two
        # batches' sampling and the last none: the mean is the steady step's
        "step_s_mean": round(sum(step_s) / len(step_s), 2),
        "step_s": [round(s, 2) for s in step_s],
        "updates_skipped": round(sum(m.get("losses/skipped", 0.0) for m in per_step)),
        "generate_s": [round(m["time/generate_s"], 2) for m in per_step],
        "update_s": [round(m["time/update_s"], 2) for m in per_step],
        "peak_memory_mib": round(memory_mib, 1),
        "peak_memory_of": memory_of,
        "metrics": sink.metrics,
    }
