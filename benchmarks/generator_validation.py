"""The built-in pack's hand-written generators under validation (issue 19): each problem's
references verified (stage 1), then each of its generators validated as a build validates
it (problems/generators/validate.py), problems side by side on the host's cores. Prints one
JSON line per generator (valid, reasons, every check's detail, executions, seconds) and a
summary line. No database.

    .venv/bin/python benchmarks/generator_validation.py [--problems SLUG ...] [--set k=v ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pack import PACK, source_problem  # noqa: E402

from problems.generators import Proposal  # noqa: E402
from problems.generators.validate import validate  # noqa: E402
from problems.pipeline import PipelineConfig  # noqa: E402
from problems.pipeline.stages import ProblemBuilder  # noqa: E402


def validate_problem(slug: str, config: PipelineConfig) -> list[dict]:
    root = Path(tempfile.mkdtemp(prefix=f"codeopt-validate-{slug}-"))
    root.chmod(0o711)
    try:
        (root / "source").mkdir()
        problem = source_problem(slug, root / "source")
        builder = ProblemBuilder(problem, config, root, proposers=[])
        if reason := builder.verify_references():
            return [{"problem": slug, "error": f"stage 1: {reason}"}]
        rows = []
        for name, code in sorted(problem.generators.items()):
            started = time.monotonic()
            report = validate(
                Proposal(name, "hand", code),
                problem,
                config,
                root,
                builder.correct,
                builder.wrong,
                runs=builder.runs,
            )
            rows.append(
                {
                    "problem": slug,
                    "generator": name,
                    "valid": report.valid,
                    "reasons": report.reasons,
                    "checks": {c.name: [c.passed, c.detail] for c in report.checks},
                    "executions": report.executions,
                    "seconds": round(time.monotonic() - started, 1),
                }
            )
        return rows
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="*", default=None)
    parser.add_argument("--set", action="append", default=[], help="a PipelineConfig field")
    args = parser.parse_args()
    config = PipelineConfig.from_text(dict(item.split("=", 1) for item in args.set))
    slugs = args.problems or sorted(p.parent.name for p in PACK.glob("*/problem.yaml"))
    started = time.monotonic()
    rows = []
    with ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
        for problem_rows in pool.map(lambda slug: validate_problem(slug, config), slugs):
            for row in problem_rows:
                print(json.dumps(row), flush=True)
            rows += problem_rows
    generators = [r for r in rows if "generator" in r]
    summary = {
        "problems": len(slugs),
        "generators": len(generators),
        "valid": sum(r["valid"] for r in generators),
        "rejected": [f"{r['problem']}/{r['generator']}" for r in generators if not r["valid"]],
        "errors": [r["error"] for r in rows if "error" in r],
        "executions": sum(r["executions"] for r in generators),
        "wall_seconds": round(time.monotonic() - started, 1),
    }
    print(json.dumps({"summary": summary}), flush=True)


if __name__ == "__main__":
    main()
