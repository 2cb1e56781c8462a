"""Where the pack check's time goes (tests/problems/test_core_pack.py's fixture): every solution of
the 30 built-in problems on every one of its tests, problems side by side on the host's
cores, a wrong solution stopped at its first failed test.

Reports the fixture's wall time, the sandboxed runs (how many, their summed wall time,
those over 0.2 s apart from the rest, whose time is start-up), and the C++ solutions'
compiles, timed alone one after the other (each source is compiled once per check).

    .venv/bin/python benchmarks/pack_check.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402

from execution.engine import compile_program  # noqa: E402
from tests.problems.test_core_pack import PACK, _verdicts  # noqa: E402  (what the test runs)

LONG_RUN_S = 0.2


def check(slug: str) -> list[float]:
    """The walls of every run of one problem's check, run by the test's own function."""
    return [r.wall_s or 0.0 for _, _, tests in _verdicts(slug).values() for r in tests]


def main() -> None:
    slugs = sorted(p.parent.name for p in PACK.glob("*/problem.yaml"))
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
        walls = [w for problem in pool.map(check, slugs) for w in problem]
    fixture_s = time.perf_counter() - started
    long = [w for w in walls if w > LONG_RUN_S]
    short = [w for w in walls if w <= LONG_RUN_S]
    sources = sorted(PACK.glob("*/submissions/*/*.cpp"))
    work = Path(tempfile.mkdtemp(prefix="codeopt-pack-bench-"))
    compile_started = time.perf_counter()
    for index, source in enumerate(sources):
        artifact, message = compile_program(source.read_text(), "cpp", work / f"build-{index}")
        assert artifact is not None, (source, message)
    compile_s = time.perf_counter() - compile_started
    report(
        "pack_check",
        {
            "problems": len(slugs),
            "fixture_wall_s": round(fixture_s, 1),
            "runs": len(walls),
            "runs_wall_s": round(sum(walls), 1),
            "long_runs": len(long),
            "long_runs_wall_s": round(sum(long), 1),
            "short_run_mean_ms": round(1000 * sum(short) / max(1, len(short)), 1),
            "cpp_compiles": len(sources),
            "cpp_compile_wall_s": round(compile_s, 1),
            "cpp_compile_mean_s": round(compile_s / max(1, len(sources)), 2),
        },
    )


if __name__ == "__main__":
    main()
