"""Record a real stage's progress while its host gets busier: the built-in tiny model's warm
start (a 2-layer GPT-2, as the demo's runs start), each step's time, with `--load` processes
started at `--load-at` of the steps that keep the CPUs busy until it ends (as a second run
starting beside it does). The trace (stage, total, [[seconds, steps done], ...], when the load
started) is what tests/training/test_progress_estimate.py replays through the run page's
estimate (training.sink.StageProgress).

    .venv/bin/python benchmarks/progress_trace.py --steps 300 --load-at 0.3 --load 3 \\
        --out tests/fixtures/progress/warm_start_busier.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

from _harness import setup_django


def _busy(stop) -> None:
    count = 0
    while not stop.is_set():
        count += sum(i * i for i in range(10_000))


def record(steps: int, load_at: float, load: int) -> dict:
    import torch

    from execution.samples import FAST, SLOW
    from training.policy import TinyModelConfig, tiny_model, train_tokenizer
    from training.rollout import make_prompt
    from training.smoke import STATEMENT
    from training.update import warm_start

    torch.manual_seed(0)
    prompt = make_prompt(STATEMENT)
    tokenizer = train_tokenizer([prompt, FAST, SLOW], vocab_size=300)
    model = tiny_model(tokenizer, TinyModelConfig())
    stop = multiprocessing.Event()
    workers: list[multiprocessing.Process] = []
    points: list[list[float]] = []
    started = time.monotonic()
    load_started: list[float] = []

    def on_step(done: int, total: int) -> None:
        now = time.monotonic() - started
        points.append([round(now, 4), done])
        if not workers and done >= load_at * total:
            load_started.append(now)
            for _ in range(load):
                worker = multiprocessing.Process(target=_busy, args=(stop,), daemon=True)
                worker.start()
                workers.append(worker)

    try:
        warm_start(model, tokenizer, [(prompt, FAST), (prompt, SLOW)], steps=steps,
                   learning_rate=3e-3, batch_size=8, on_step=on_step)  # fmt: skip
    finally:
        stop.set()
        for worker in workers:
            worker.join()
    return {
        "stage": "warm start",
        "total": steps,
        "points": points,
        "load_started_s": load_started[0] if load_started else None,
        "load_processes": load,
        "recorded": {
            "command": f"benchmarks/progress_trace.py --steps {steps} --load-at {load_at} "
            f"--load {load}",
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "machine": f"{platform.node()}, {multiprocessing.cpu_count()} CPUs",
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--load-at", type=float, default=0.3, help="share of the steps")
    parser.add_argument("--load", type=int, default=3, help="busy processes started then")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    setup_django()
    trace = record(args.steps, args.load_at, args.load)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(trace) + "\n")
    end = trace["points"][-1][0]
    print(f"{args.steps} steps in {end:.1f} s, load from {trace['load_started_s']:.1f} s")


if __name__ == "__main__":
    main()
