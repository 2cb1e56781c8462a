"""Optimization tests for imported problems without hand-written generators (issues 19, 33):
the construction pipeline with the offline inferencer as the only generator source
(problems/generators/infer.py; no model), on the shared real Kattis packages (beside the
checkout, ../shared/realdata/kattis, when present), on the code_contests sample
(problems/packs/code_contests_sample.jsonl, every statement with constraint lines) and on
the unbounded records (problems/packs/code_contests_unbounded.jsonl, statements with no
bound). No database; problems side by side on the host's cores.

Each problem is built twice in the same run: "before", with no growth past SIZE_MAX
(growth_probes 0), and "after", with growth by measurement (the default).

Figures per set and setting: the problems whose inferred generator is valid, those reaching
optimization tests (stage 3), those named untimeable (no input slows any reference), those
kept by the time-discriminative filter (stage 4), the discrimination (slowest / fastest
correct reference) of the kept ones, and the build throughput in problems per hour per core.

    .venv/bin/python benchmarks/inferred_generators.py [--limit N] [--workers 2]
        [--settings before after] [--slow-target 0.3 --repeats 2]
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
RECORDS = {
    "code_contests": ROOT / "problems" / "packs" / "code_contests_sample.jsonl",
    "unbounded": ROOT / "problems" / "packs" / "code_contests_unbounded.jsonl",
}
SETTINGS = {"before": {"growth_probes": 0}, "after": {}}


def imported_problems() -> list[tuple[str, object]]:
    """(set, ImportedProblem) of every set; the real packages only where they are."""
    found = []
    if REAL.is_dir():
        found += [("kattis", kattis.read_package(p)) for p in kattis.find_packages(REAL)]
    for kind, path in RECORDS.items():
        for _, item in code_contests.read_records(path):
            if not isinstance(item, code_contests.RecordError):
                found.append((kind, item))
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
        "reach": max((r.get("reach", 0) for r in inferred), default=0),
        "stage_reached": outcome.stage_reached,
        "untimeable": outcome.untimeable,
        "kept": outcome.kept,
        "reason": outcome.reason[:300],
        "discrimination": outcome.discrimination,
        "seconds": round(seconds, 1),
    }


def summary(rows: list[dict]) -> dict:
    ratios = [r["discrimination"] for r in rows if r["kept"] and r["discrimination"]]
    return {
        "problems": len(rows),
        "inferred_valid": sum(r["inferred_valid"] for r in rows),
        "optimization_tests": sum(r["stage_reached"] >= 3 for r in rows),
        "untimeable": sum(r["untimeable"] for r in rows),
        "kept": sum(r["kept"] for r in rows),
        "grown_past_size_max": sum(r["reach"] > 100 for r in rows),
        "discrimination_median": round(statistics.median(ratios), 2) if ratios else None,
        "discrimination_min": round(min(ratios), 2) if ratios else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="At most this many problems.")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS))
    parser.add_argument("--sets", nargs="+", choices=["kattis", *RECORDS], default=None)
    parser.add_argument("--slow-target", type=float, default=PipelineConfig.slow_target_s)
    parser.add_argument("--repeats", type=int, default=PipelineConfig.repeats)
    args = parser.parse_args()
    problems = [p for p in imported_problems() if not args.sets or p[0] in args.sets]
    if args.limit:
        problems = problems[: args.limit]
    figures = {"problems": len(problems), "workers": args.workers}
    for setting in args.settings:
        config = PipelineConfig(
            infer_generators=True,
            llm_generators=False,
            slow_target_s=args.slow_target,
            repeats=args.repeats,
            **SETTINGS[setting],
        )
        started = time.monotonic()
        with ThreadPoolExecutor(args.workers) as pool:
            rows = list(pool.map(lambda item, c=config: build_one(*item, c), problems))
        wall = time.monotonic() - started
        for row in rows:
            report("inferred_generators_problem", {"setting": setting, **row})
        figures[setting] = {
            kind: summary([r for r in rows if r["set"] == kind])
            for kind in sorted({r["set"] for r in rows})
        }
        figures[setting]["wall_s"] = round(wall)
        figures[setting]["problems_per_hour_per_core"] = round(
            len(rows) / (wall / 3600) / args.workers, 1
        )
    report("inferred_generators", figures)


if __name__ == "__main__":
    main()
