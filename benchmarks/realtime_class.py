"""Would the real-time class keep a measured program's CPU time steady under load? A probe
of an idea not adopted (docs/benchmarks.md, "What moved the figure"): a short Python
program (0.05-0.15 s of CPU, by machine) pinned to one core, run normally and under
`chrt -f 1` (SCHED_FIFO) in turn, idle, beside 2 busy processes, and idle again. Per block
and class: the median CPU time, its CV, and the sd of log(lowest of each 5 runs), the
estimate the product ranks by.

Needs root (or CAP_SYS_NICE) for chrt, and taskset.

    .venv/bin/python benchmarks/realtime_class.py [--runs 40] [--core 1]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import report  # noqa: E402

PROGRAM = (
    "import random\nrandom.seed(1)\na = [random.random() for _ in range(150000)]\na.sort()\n"
    "s = 0\nfor x in a:\n    s += x\n"
)


def cpu_of(command: list[str]) -> float:
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    if status:
        raise SystemExit(f"{' '.join(command)}: exit status {status}")
    return usage.ru_utime + usage.ru_stime


def summary(times: list[float]) -> dict:
    lows = [min(times[i : i + 5]) for i in range(0, len(times), 5)]
    return {
        "median_s": round(statistics.median(times), 4),
        "cv_pct": round(100 * statistics.pstdev(times) / statistics.mean(times), 1),
        "lowest_of_5_sd_pct": round(100 * statistics.pstdev([math.log(x) for x in lows]), 1),
    }


def block(script: Path, runs: int, core: int) -> dict:
    plain = ["taskset", "-c", str(core), sys.executable, "-S", str(script)]
    normal, fifo = [], []
    for _ in range(runs):  # interleaved: both classes see the same minutes
        normal.append(cpu_of(plain))
        fifo.append(cpu_of(["chrt", "-f", "1", *plain]))
    return {"normal": summary(normal), "fifo": summary(fifo)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--core", type=int, default=1)
    args = parser.parse_args()
    script = Path(tempfile.mkdtemp(prefix="codeopt-rt-")) / "program.py"
    script.write_text(PROGRAM)
    figures = {"runs": args.runs, "idle": block(script, args.runs, args.core)}
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        figures["loaded"] = block(script, args.runs, args.core)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    figures["idle_again"] = block(script, args.runs, args.core)
    report("realtime_class", figures)


if __name__ == "__main__":
    main()
