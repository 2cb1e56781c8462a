"""The built-in analyzer's accuracy on the labelled pair sets: the set its rules were tuned on,
the held-out set written without sight of them, and the unseen set written apart from them in
varied styles on the built-in pack's problems (judges/labelled.py); per category and overall,
the confusion matrix, and (--misses) the pairs it gets wrong with its rationale.

    .venv/bin/python benchmarks/judge_analyzer.py [--misses]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402

from judges.labelled import HOLDOUT, LABELLED, UNSEEN, accuracy, load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="Print every wrong verdict.")
    args = parser.parse_args()
    figures = {}
    for name, path in (("labelled", LABELLED), ("held_out", HOLDOUT), ("unseen", UNSEEN)):
        pairs = load(path)
        started = time.perf_counter()
        found = accuracy(pairs)
        elapsed = time.perf_counter() - started
        if args.misses:
            for miss in found["misses"]:
                print(json.dumps({"set": name, **miss}), file=sys.stderr)
        figures[name] = {
            "pairs": found["pairs"],
            "overall_accuracy": round(found["overall"], 3),
            "per_category": {
                c: f"{v['correct']}/{v['pairs']} ({v['accuracy']:.0%})"
                for c, v in found["per_category"].items()
            },
            "confusion": found["confusion"],
            "ms_per_pair": round(1000 * elapsed / max(1, found["pairs"]), 2),
        }
    report("judge_analyzer", figures)


if __name__ == "__main__":
    main()
