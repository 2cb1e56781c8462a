"""A few steps of the training loop on a GPU with bf16 (README, "GPU nodes"): no database,
one small problem measured here, the real sampling, scoring, update and checkpoint code.

    .venv/bin/python scripts/gpu_train_steps.py [--model tiny|/path/to/local/model] [--steps 3]

Prints each step's headline metrics, then one JSON line: device, dtype, GPU name, steps,
seconds. Exits 1 when no GPU is visible (use --allow-cpu to run anyway).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--warm-start-steps", type=int, default=300, help="tiny model only")
    parser.add_argument("--allow-cpu", action="store_true")
    args = parser.parse_args()
    import torch

    from training.smoke import run_smoke

    if not torch.cuda.is_available() and not args.allow_cpu:
        print("no CUDA device visible (torch.cuda.is_available() is False)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="codeopt-gpu-") as folder:
        result = run_smoke(args.model, args.steps, Path(folder), args.warm_start_steps)
    result.pop("metrics")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
