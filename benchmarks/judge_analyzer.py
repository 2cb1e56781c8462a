"""The built-in analyzer's accuracy on the labelled pair set (issue 8): per category and
overall, the confusion matrix, and the pairs it gets wrong with its rationale.

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

from judges.labelled import accuracy, load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="Print every wrong verdict.")
    args = parser.parse_args()
    pairs = load()
    started = time.perf_counter()
    found = accuracy(pairs)
    elapsed = time.perf_counter() - started
    if args.misses:
        for miss in found["misses"]:
            print(json.dumps(miss), file=sys.stderr)
    report(
        "judge_analyzer",
        {
            "pairs": found["pairs"],
            "overall_accuracy": round(found["overall"], 3),
            "per_category": {
                c: f"{v['correct']}/{v['pairs']} ({v['accuracy']:.0%})"
                for c, v in found["per_category"].items()
            },
            "confusion": found["confusion"],
            "ms_per_pair": round(1000 * elapsed / max(1, found["pairs"]), 2),
        },
    )


if __name__ == "__main__":
    main()
