"""A few steps of the real training loop on a GPU, in each dtype asked for (README, "GPU
nodes"): no database, the sum task measured here (P wordings of it, one group each; posed
as a function to a pretrained model, as the demo's problems are), the real sampling, scoring,
update and checkpoint code.

    .venv/bin/python scripts/gpu_train_steps.py [--model smollm2-135m-instruct|tiny|/path]
        [--steps 3] [--dtypes bfloat16 float32] [--group-size 8 --prompts 2]

Each dtype runs in a process of its own (its peak memory is its own). Prints a table of the
figures docs/benchmarks.md records for the CPU (tokens sampled per second, seconds per GRPO
step, peak memory), then one JSON line: device, GPU name, and one entry per dtype. Exits 1
when no GPU is visible (--allow-cpu runs anyway, on the CPU).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DTYPES = ("bfloat16", "float32")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--dtypes", nargs="+", choices=DTYPES, default=list(DTYPES))
    parser.add_argument("--group-size", type=int, default=8, help="G, samples per prompt")
    parser.add_argument("--prompts", type=int, default=2, help="P, prompts per step")
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument(
        "--trainable-layers",
        type=int,
        default=4,
        help="Train the last N blocks (the demo's 4; 0: every parameter).",
    )
    parser.add_argument("--warm-start-steps", type=int, default=300, help="tiny model only")
    parser.add_argument(
        "--model-cache",
        type=Path,
        default=Path(os.environ.get("CODEOPT_MODEL_CACHE") or ROOT / "var" / "models"),
        help="Where named base models are converted (make install: var/models).",
    )
    parser.add_argument("--allow-cpu", action="store_true")
    args = parser.parse_args(argv)
    for name in ("steps", "group_size", "prompts", "max_new_tokens"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')}: at least 1")
    if args.group_size < 2:
        parser.error("--group-size: at least 2 (a group of one has no advantage)")
    if args.trainable_layers < 0:
        parser.error("--trainable-layers: 0 (every parameter) or more")
    return args


def measure(args: argparse.Namespace, dtype: str) -> dict:
    """One dtype's run (in a fresh process: see main)."""
    from training.smoke import run_smoke

    with tempfile.TemporaryDirectory(prefix="codeopt-gpu-") as folder:
        result = run_smoke(
            args.model,
            args.steps,
            Path(folder),
            args.warm_start_steps,
            dtype=dtype,
            prompts=args.prompts,
            group_size=args.group_size,
            max_new_tokens=args.max_new_tokens,
            trainable_layers=args.trainable_layers,
            cache_root=args.model_cache,
        )
    result.pop("metrics")
    return result


def table(runs: list[dict]) -> str:
    lines = ["dtype     tokens/s sampled  s/step mean (each)          updates  peak memory MiB"]
    for run in runs:
        each = ", ".join(f"{s:.1f}" for s in run["step_s"])
        updates = f"{run['steps'] - run['updates_skipped']}/{run['steps']}"
        lines.append(
            f"{run['dtype']:<9} {run['tokens_per_s'] or float('nan'):>16.1f}  "
            + f"{run['step_s_mean']:>6.2f} ({each})".ljust(28)
            + f"{updates:>7}  {run['peak_memory_mib']:>8.0f} ({run['peak_memory_of']})"
        )
    if any(run["updates_skipped"] for run in runs):
        lines.append(
            "a skipped update (every group tied) has no backward pass: its step is cheaper "
            "than a training step; run more steps"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    import torch

    if not torch.cuda.is_available() and not args.allow_cpu:
        print("no CUDA device visible (torch.cuda.is_available() is False)", file=sys.stderr)
        return 1
    runs = []
    for dtype in args.dtypes:
        # a spawned process per dtype: its own CUDA context and peak memory
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            try:
                runs.append(pool.submit(measure, args, dtype).result())
            except ValueError as exc:  # a model that is not there, too few blocks, ...
                print(f"error: {exc}", file=sys.stderr)
                return 2
    first = runs[0]
    print(
        f"{first['model']} on {first['cuda'] or first['device']}: G={args.group_size}, "
        f"P={args.prompts}, {args.max_new_tokens} new tokens at most, "
        f"{args.trainable_layers or 'all'} trained blocks, {args.steps} steps"
    )
    print(table(runs))
    summary = {
        "model": args.model,
        "device": first["device"],
        "cuda": first["cuda"],
        "steps": args.steps,
        "group_size": args.group_size,
        "prompts": args.prompts,
        "runs": runs,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
