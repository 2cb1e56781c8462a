"""The tiny model's warm start with one torch thread and with torch's default, idle and beside
busy processes: OpenMP threads that wait spin on every core, so on a shared 2-core host a
process with torch's default threads takes CPU from its neighbours and from itself.

    .venv/bin/python benchmarks/torch_threads.py [--steps 20] [--repeats 3]

Each measurement is a fresh process (the thread count is fixed when torch starts) running
`--steps` warm-start steps on the sample "sum" programs; its CPU seconds (user + system, its
threads included) and wall seconds are the medians over `--repeats`, the settings taken in
turn. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, burners, report  # noqa: E402

WARM_START = """
import json, sys, time
import torch
from execution.samples import FAST, MIDDLE, SLOW
from training.policy import load_policy
from training.update import warm_start

examples = [("Print the sum of the numbers.", p) for p in (FAST, MIDDLE, SLOW)]
model, tokenizer = load_policy("tiny", [t for pair in examples for t in pair], seed=0)
started, wall = time.process_time(), time.monotonic()
warm_start(model, tokenizer, examples, steps=int(sys.argv[1]), learning_rate=3e-3)
print(json.dumps({"cpu_s": time.process_time() - started,
                  "wall_s": time.monotonic() - wall, "threads": torch.get_num_threads()}))
"""


def warm_start_once(steps: int, threads: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    if threads != "default":
        env["OMP_NUM_THREADS"] = threads
    done = subprocess.run(
        [sys.executable, "-c", WARM_START, str(steps)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    figures: dict[str, dict] = {}
    for condition, busy in (("idle", 0), ("beside one busy process", 1)):
        samples: dict[str, list[dict]] = {"1": [], "default": []}
        with burners(busy):
            for _ in range(args.repeats):
                for threads in samples:  # in turn: the host's speed drifts
                    samples[threads].append(warm_start_once(args.steps, threads))
        figures[condition] = {
            f"threads={threads} ({runs[0]['threads']})": {
                key: round(statistics.median(r[key] for r in runs), 2)
                for key in ("cpu_s", "wall_s")
            }
            for threads, runs in samples.items()
        }
    report(
        "torch_threads", {"warm_start_steps": args.steps, "cpu_count": os.cpu_count(), **figures}
    )


if __name__ == "__main__":
    main()
