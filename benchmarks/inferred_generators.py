"""Optimization tests for imported problems without hand-written generators (issue 19):
the construction pipeline with the offline inferencer as the only generator source
(problems/generators/infer.py; no model), on the shared real Kattis packages (beside the
checkout, ../shared/realdata/kattis, when present) and on the code_contests sample
(problems/packs/code_contests_sample.jsonl). No database; problems side by side on the
host's cores.

Figures: the share of problems whose inferred generator is valid and of those reaching
optimization tests (stage 3) and the time-discriminative filter (stage 4), the
discrimination (slowest / fastest correct reference) of the kept ones, and the build
throughput in problems per hour per core.

    .venv/bin/python benchmarks/inferred_generators.py [--limit N] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import report  # noqa: E402
from _pack import ROOT, imported_source_problem  # noqa: E402

from problems.importers import code_contests, kattis  # noqa: E402
from problems.pipeline import PipelineConfig, build_problem  # noqa: E402

REAL = ROOT.parent / "shared" / "realdata" / "kattis"
SAMPLE = ROOT / "problems" / "packs" / "code_contests_sample.jsonl"


def imported_problems() -> list[tuple[str, object]]:
    """(set, ImportedProblem) of both sets; the real packages only where they are."""
    found = []
    if REAL.is_dir():
        found += [("kattis", kattis.read_package(p)) for p in kattis.find_packages(REAL)]
    for _, item in code_contests.read_records(SAMPLE):
        if not isinstance(item, code_contests.RecordError):
            found.append(("code_contests", item))
    return found


def build_one(kind: str, imported, config: PipelineConfig) -> dict:
    root = Path(tempfile.mkdtemp(prefix="codeopt-infer-bench-"))
    root.chmod(0o711)
    try:
        problem = imported_source_problem(imported, root)
        problem.generators = {}  # the inferencer alone
        started = time.monotonic()
        outcome = build_problem(problem, config, workdir=root)
        seconds = time.monotonic() - started
    finally:
        shutil.rmtree(root, ignore_errors=True)
    inferred = [g.report for g in outcome.generators if g.proposal.source == "inferred"]
    return {
        "set": kind,
        "problem": imported.slug,
        "inferred_valid": any(r["valid"] for r in inferred),
        "inferred_reasons": [reason for r in inferred for reason in r["reasons"]][:2],
        "stage_reached": outcome.stage_reached,
        "kept": outcome.kept,
        "reason": outcome.reason,
        "discrimination": outcome.discrimination,
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="At most this many problems.")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    config = PipelineConfig(infer_generators=True, llm_generators=False)
    problems = imported_problems()
    if args.limit:
        problems = problems[: args.limit]
    started = time.monotonic()
    with ThreadPoolExecutor(args.workers) as pool:
        rows = list(pool.map(lambda item: build_one(*item, config), problems))
    wall = time.monotonic() - started
    for row in rows:
        report("inferred_generators_problem", row)
    figures = {"problems": len(rows), "workers": args.workers, "wall_s": round(wall)}
    for kind in sorted({r["set"] for r in rows}):
        of = [r for r in rows if r["set"] == kind]
        ratios = [r["discrimination"] for r in of if r["kept"] and r["discrimination"]]
        figures[kind] = {
            "problems": len(of),
            "inferred_valid": sum(r["inferred_valid"] for r in of),
            "optimization_tests": sum(r["stage_reached"] >= 3 for r in of),
            "kept": sum(r["kept"] for r in of),
            "discrimination_median": round(statistics.median(ratios), 2) if ratios else None,
            "discrimination_min": round(min(ratios), 2) if ratios else None,
        }
    figures["problems_per_hour_per_core"] = round(len(rows) / (wall / 3600) / args.workers, 1)
    report("inferred_generators", figures)


if __name__ == "__main__":
    main()
