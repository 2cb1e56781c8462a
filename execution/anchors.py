"""Anchor programs: a fixed set of small deterministic programs every timing host measures,
so that its measurements can be put on the scale of the stored reference runtimes (per-host
calibration, docs/operations.md). Plain Python, no Django.

The dataset build measures the anchors where and when it measures the references (the
baseline, stored with the build); each timing worker measures them when it starts and every
CODEOPT_ANCHOR_INTERVAL_S. A host's factor is the geometric mean over the anchors of
host cost / baseline cost: a candidate's cost divided by it reads as if it had run where the
references were measured.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from execution.engine import Case, Program, lowest_cost, measure
from execution.sandbox import Limits

ANCHORS: dict[str, tuple[str, str]] = {
    # name -> (Python source, its input): different kinds of work, each ~20-60 ms of CPU
    "loop-arith": (
        "import sys\nn = int(sys.stdin.readline())\ns = 0\n"
        "for i in range(n):\n    s = (s * 31 + i) % 1000003\nprint(s)\n",
        "300000\n",
    ),
    "dict-sort": (
        "import sys\nn = int(sys.stdin.readline())\nd = {}\n"
        "for i in range(n):\n    d[(i * 7919) % 100003] = i\n"
        "print(sum(k * v for k, v in sorted(d.items())) % 1000003)\n",
        "50000\n",
    ),
    "string-build": (
        "import sys\nn = int(sys.stdin.readline())\n"
        "parts = [str(i * i) for i in range(n)]\ntext = ''.join(parts)\n"
        "print(len(text), text.count('7'))\n",
        "150000\n",
    ),
}
"""The built-in anchors. Changing one invalidates every stored baseline: rename it."""

ANCHOR_REPEATS = 5
"""Runs of each anchor per calibration; the cost is the lowest of them (engine.lowest_cost)."""
ANCHOR_SETTLE = 0.02
"""Rounds stop once each anchor's two lowest runs agree within 2% (engine.settled)."""


@dataclass(frozen=True)
class HostFactor:
    factor: float  # geometric mean of host / baseline cost over the anchors
    spread: float  # max / min of the per-anchor ratios: 1.0 when one factor fits them all
    ratios: dict[str, float]  # anchor -> host cost / baseline cost


def write_anchor_cases(folder: Path) -> list[Case]:
    """The anchors' inputs and expected outputs, written under `folder` on demand (the
    answers from running each anchor once outside the sandbox: they are deterministic)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = []
    for name, (source, given) in ANCHORS.items():
        (folder / f"{name}.in").write_text(given)
        answer = subprocess.run(
            [sys.executable, "-c", source], input=given, capture_output=True, text=True, check=True
        ).stdout
        (folder / f"{name}.ans").write_text(answer)
        cases.append(Case(name, folder / f"{name}.in", folder / f"{name}.ans", "optimization"))
    return cases


def measure_anchors(repeats: int = ANCHOR_REPEATS, workdir: Path | None = None) -> dict[str, float]:
    """{anchor: CPU seconds}, each the lowest of up to `repeats` settled runs, pinned to one
    core as any measurement is (engine.measure). Raises RuntimeError when an anchor fails."""
    with tempfile.TemporaryDirectory(prefix="codeopt-anchors-", dir=workdir) as folder:
        cases = write_anchor_cases(Path(folder))
        costs = {}
        for case in cases:  # each anchor is its own program, measured on its own input
            source = ANCHORS[case.name][0]
            report = measure(
                [Program(case.name, source, "python")],
                [case],
                limits=Limits(cpu_seconds=10.0, wall_seconds=30.0),
                repeats=repeats,
                settle=ANCHOR_SETTLE,
                workdir=workdir,
            )[case.name]
            result = report.tests[0]
            if result.verdict != "OK":
                raise RuntimeError(f"anchor {case.name}: {result.verdict} {result.message}")
            costs[case.name] = float(lowest_cost(result, "cpu"))
    return costs


def host_factor(host: dict[str, float], baseline: dict[str, float]) -> HostFactor:
    """The factor of a host from its anchor costs and the baseline's (same units), over the
    anchors both have. Raises ValueError when they share none."""
    names = sorted(n for n in host if n in baseline and host[n] > 0 and baseline[n] > 0)
    if not names:
        raise ValueError("the host and the baseline measured no anchor in common")
    ratios = {n: host[n] / baseline[n] for n in names}
    factor = math.exp(statistics.fmean(math.log(r) for r in ratios.values()))
    spread = max(ratios.values()) / min(ratios.values())
    return HostFactor(factor, spread, ratios)


def unfit_reason(
    factor: float | None,
    spread: float | None,
    age_s: float | None,
    *,
    stale_after_s: float,
    max_spread: float,
) -> str:
    """Why a host must not score against stored references ("" when it may): its factor is
    older than `stale_after_s` (the worker stopped calibrating) or its anchors disagree by
    more than `max_spread` (no single factor fits the host)."""
    if factor is None or age_s is None:
        return ""
    if age_s > stale_after_s:
        return f"calibration stale: measured {age_s:.0f} s ago (limit {stale_after_s:.0f} s)"
    if spread is not None and spread > max_spread:
        return f"calibration unstable: anchor spread {spread:.2f}x (limit {max_spread:.2f}x)"
    return ""
