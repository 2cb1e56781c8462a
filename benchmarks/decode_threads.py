"""One decoding step of the named base model with 1 and with 2 torch threads, as a training
run takes it: a 300-token prompt prefilled once, its cache repeated for a group of 4, then
single-token steps. Run it beside whatever else the host does: on a shared 2-core host the
two-thread figure is what a neighbour's load does to OpenMP's spinning threads.

    .venv/bin/python benchmarks/decode_threads.py [--steps 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def measure(threads: int, steps: int) -> dict:
    import torch

    from training.policy import load_policy

    torch.set_num_threads(threads)
    model, _ = load_policy("smollm2-135m-instruct", cache_root=ROOT / "var" / "models")
    prompt = torch.randint(100, 1000, (1, 300))
    with torch.inference_mode():
        started = time.monotonic()
        head = model(prompt, use_cache=True)
        prefill_s = time.monotonic() - started
        cache = head.cache
        cache.batch_repeat_interleave(4)
        token = torch.randint(100, 1000, (4, 1))
        step_s = []
        for _ in range(steps):
            started = time.monotonic()
            model(token, cache=cache, use_cache=True)
            step_s.append(round(time.monotonic() - started, 3))
    return {"threads": threads, "prefill_300_s": round(prefill_s, 2), "decode_step_s": step_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)  # one measurement
    args = parser.parse_args()
    if args.threads:
        print(json.dumps(measure(args.threads, args.steps)))
        return
    rows = []
    for threads in (1, 2):  # each in a process of its own: torch's thread pool is per process
        answer = subprocess.run(
            [sys.executable, __file__, "--threads", str(threads), "--steps", str(args.steps)],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(answer.stdout.strip().splitlines()[-1]))
        print(
            f"{threads} thread(s): prefill {rows[-1]['prefill_300_s']} s, decoding steps "
            f"{rows[-1]['decode_step_s']} s",
            flush=True,
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
