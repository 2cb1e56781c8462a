"""How often the named base model solves a pack problem before any training: G samples per
problem through its chat format (as training and evaluations prompt it), each program run on
the problem's sample test and first secret tests (plain subprocess, 5 s each: a probe, not
the product's sandboxed scoring).

    .venv/bin/python benchmarks/real_model_success.py [--problems max-number ...]
        [--samples 8 --temperature 0.7 --max-new-tokens 128] [--as-statement]

A problem with a `function.yaml` is posed as that function and its harness follows each
program, as training and evaluations pose it; `--as-statement` poses every problem as its
statement (a whole stdin-to-stdout program), for the comparison.

Prints per problem: correct / samples, and how many had no program (no closing fence).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PACK = ROOT / "problems" / "packs" / "core"


def passes(program: str, folder: Path) -> bool:
    tests = sorted((folder / "data" / "sample").glob("*.in"))
    tests += sorted((folder / "data" / "secret").glob("*.in"))[:3]
    for test in tests:
        try:
            answer = subprocess.run(
                [sys.executable, "-c", program],
                stdin=test.open(),
                capture_output=True,
                timeout=5,
                text=True,
            )
        except subprocess.TimeoutExpired:
            return False
        if answer.stdout.split() != test.with_suffix(".ans").read_text().split():
            return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--problems",
        nargs="+",
        default=["max-number", "count-vowels", "even-count", "sort-numbers"],
    )
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--as-statement", action="store_true")
    args = parser.parse_args()
    import torch
    import yaml

    from lm.prompts import make_prompt
    from problems.function_task import FunctionTask
    from training.policy import load_policy
    from training.rollout import sample_groups

    torch.set_num_threads(1)  # on a shared host (docs/benchmarks.md, "Threads")
    model, tokenizer = load_policy("smollm2-135m-instruct", cache_root=ROOT / "var" / "models")
    rows = []
    for slug in args.problems:
        folder = PACK / slug
        statement = (folder / "problem_statement" / "problem.en.md").read_text()
        posed = folder / "function.yaml"
        task = None
        if posed.exists() and not args.as_statement:
            task = FunctionTask.from_dict(yaml.safe_load(posed.read_text()))
        torch.manual_seed(0)
        samples = sample_groups(
            model,
            tokenizer,
            [make_prompt(statement, style="chatml", function=task)],
            args.samples,
            max_new_tokens=args.max_new_tokens,
            temperature=args.temperature,
            harnesses=[task.harness if task else ""],
        )
        correct = sum(s.program is not None and passes(s.program, folder) for s in samples)
        without = sum(s.program is None for s in samples)
        posed_as = "function" if task else "statement"
        rows.append(
            {
                "problem": slug,
                "posed_as": posed_as,
                "correct": correct,
                "samples": len(samples),
                "no_program": without,
            }
        )
        print(
            f"{slug:20s} as a {posed_as:9s} {correct} / {len(samples)} correct, "
            f"{without} without a program",
            flush=True,
        )
    print(json.dumps({"temperature": args.temperature, "rows": rows}))


if __name__ == "__main__":
    main()
