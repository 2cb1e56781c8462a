"""CPU-time spread of a correct program measured alone and beside each hostile program
(execution/hostile.py: fork bomb, memory hog, output flood, CPU burner, disk filler),
through the engine as a timing job measures it; and the runner's rusage against the run
cgroup's CPU counter for the same runs.

For each hostile program the correct program is measured `--repeats` times alone, then
`--repeats` times beside it (one engine call each, pinned to one core as every measurement
is: execution/affinity.py); beside, only once the hostile program is running, and it
keeps running until all repeats are done (its wall limit is longer). Prints a table, then one
JSON line of the figures.

    .venv/bin/python benchmarks/sandbox_isolation.py [--repeats 15]
    CODEOPT_SANDBOX_ISOLATION=uid-pool .venv/bin/python benchmarks/sandbox_isolation.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402

from execution import hostile  # noqa: E402
from execution.engine import Case, execute  # noqa: E402
from execution.isolation import active_isolation  # noqa: E402
from execution.sandbox import Limits, prepare_box, run_sandboxed  # noqa: E402


def spread(samples: list[float]) -> dict:
    ordered = sorted(samples)
    mean = statistics.fmean(ordered)
    return {
        "n": len(ordered),
        "median_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
        "cv": round(statistics.pstdev(ordered) / mean, 3) if mean else None,
    }


def _neighbour_running() -> bool:
    """A bwrap process started by this process is running (the neighbour's sandbox)."""
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                if Path(f"/proc/{child}/comm").read_text().strip() == "bwrap":
                    return True
            except OSError:  # ended meanwhile
                continue
    return False


def measure_beside(
    name: str | None, case: list[Case], repeats: int, neighbour_wall_s: float
) -> tuple[dict, float, list[float]]:
    """(spread of the correct program's CPU time beside neighbour `name` (None: alone),
    the wall time the measurement took, the samples).

    1. Start the neighbour in a thread, its wall limit `neighbour_wall_s` (longer than the
       measurement: it is still attacking when the last repeat ends; the wall clock ends it,
       since a namespace killed from outside counts as a sandbox failure and is started again).
    2. Once its sandbox is up, give it half a second to get its attack under way.
    3. Measure the correct program `repeats` times; wait for the neighbour's end."""
    thread = None
    if name is not None:
        limits = Limits(cpu_seconds=600, wall_seconds=neighbour_wall_s, memory_mb=256, output_mb=8)
        thread = threading.Thread(
            target=execute,
            args=(hostile.NEIGHBOURS[name], "python", case),
            kwargs={"limits": limits, "repeats": 1},
            daemon=True,
        )
        thread.start()
        deadline = time.monotonic() + 30
        while not _neighbour_running() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.5)
    started = time.monotonic()
    result = execute(
        hostile.CORRECT, "python", case, limits=hostile.CORRECT_LIMITS, repeats=repeats
    ).tests[0]
    took = time.monotonic() - started
    assert result.verdict == "OK", (name, result.verdict, result.message)
    if thread is not None:
        assert took < neighbour_wall_s - 0.5, f"{name} ended before the measurement did"
        thread.join(neighbour_wall_s + 60)
    return spread(result.cpu_samples), took, result.cpu_samples


def rusage_against_cgroup(case: Case, runs: int) -> dict:
    """The same run's CPU as the runner reports it (rusage of the program's tree) and as
    the run's cgroup counts it (bwrap and the runner included)."""
    if active_isolation().tree is None:
        return {}
    work = Path(tempfile.mkdtemp(prefix="codeopt-isolation-"))
    work.chmod(0o711)
    rusage, cgroup = [], []
    for i in range(runs):
        box = prepare_box(work / f"r{i}")
        (box / "main.py").write_text(hostile.CORRECT)
        run = run_sandboxed(
            ["/usr/bin/python3", "/box/main.py"],
            box=box,
            limits=hostile.CORRECT_LIMITS,
            stdin_path=case.input_path,
            stdout_path=work / f"r{i}" / "out",
            stderr_path=work / f"r{i}" / "err",
        )
        rusage.append(run.cpu_s)
        cgroup.append(run.extra["cgroup_cpu_s"])
    shutil.rmtree(work)
    offsets = [c - r for c, r in zip(cgroup, rusage, strict=True)]
    return {
        "rusage": spread(rusage),
        "cgroup": spread(cgroup),
        "cgroup_minus_rusage_median_ms": round(1000 * statistics.median(offsets), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="codeopt-isolation-"))
    folder.chmod(0o711)
    (folder / "w.in").write_text(hostile.CORRECT_INPUT)
    (folder / "w.ans").write_text(hostile.CORRECT_ANSWER)
    case = [Case("w", folder / "w.in", folder / "w.ans")]
    # alone is measured again right before each neighbour: this host's load drifts between
    # phases (other sessions share its two cores), and the ratio compares like with like
    alone_samples: list[float] = []
    rows = {}
    for name in hostile.NEIGHBOURS:
        alone, alone_s, samples = measure_beside(None, case, args.repeats, 0)
        alone_samples += samples
        neighbour_wall_s = max(8.0, 4 * alone_s + 4)  # the program slows beside a neighbour
        beside, _, _ = measure_beside(name, case, args.repeats, neighbour_wall_s)
        ratio = round(beside["median_ms"] / alone["median_ms"], 2)
        rows[name] = {**beside, "alone_median_ms": alone["median_ms"], "median_ratio": ratio}
    pooled = spread(alone_samples)
    print(f"isolation: {active_isolation().kind}; repeats {args.repeats} per condition")
    header = f"{'condition':<14} {'n':>3} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'CV':>6}"
    print(f"{header}  {'alone just before, median ms':>28}  {'ratio':>5}")
    print(
        f"{'alone (all)':<14} {pooled['n']:>3} {pooled['median_ms']:>10} {pooled['p95_ms']:>8} "
        f"{pooled['max_ms']:>8} {pooled['cv']:>6}"
    )
    for name, row in rows.items():
        print(
            f"{'beside ' + name:<14} {row['n']:>3} {row['median_ms']:>10} {row['p95_ms']:>8} "
            f"{row['max_ms']:>8} {row['cv']:>6}  {row['alone_median_ms']:>28}  "
            f"{row['median_ratio']:>5}"
        )
    comparison = rusage_against_cgroup(case[0], args.repeats)
    shutil.rmtree(folder)
    if comparison:
        print(
            f"runner rusage vs cgroup CPU, alone: median {comparison['rusage']['median_ms']} vs "
            f"{comparison['cgroup']['median_ms']} ms, CV {comparison['rusage']['cv']} vs "
            f"{comparison['cgroup']['cv']}"
        )
    report(
        "sandbox_isolation",
        {
            "isolation": active_isolation().kind,
            "repeats": args.repeats,
            "alone": pooled,
            "beside": rows,
            "rusage_vs_cgroup": comparison,
        },
    )


if __name__ == "__main__":
    main()
