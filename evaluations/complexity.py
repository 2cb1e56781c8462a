"""Empirical scaling exponents: run programs on inputs of growing size from a problem's
generator and fit log(CPU time) against log(size) (evaluations.metrics.scaling_exponent).

Plain Python over the sandbox (execution): no Django. Each round runs every program
at every size, smallest first, so that the programs and the sizes see the same machine
state (measured size after size, this VM's speed moving between sizes bent a quadratic
program's exponent to 1.55); each point is the fastest of the rounds (noise on this machine
only ever adds time); an empty program's time is the start-up cost taken off every point.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from evaluations.metrics import scaling_exponent
from execution.affinity import pinned_core
from execution.engine import Case, Program, collect_outputs
from execution.generate import run_generator
from execution.sandbox import Limits

SIZE_FRACTIONS = (0.25, 0.5, 1.0, 2.0)
"""The sizes measured, as multiples of the optimization test's SIZE (an 8x range reaching
past it: at the small end a fast program's work drowns in start-up time and timer noise)."""
STARTUP_PROGRAM = "import sys\nsys.stdin.buffer.read(1)\n"


@dataclass
class ScalingReport:
    sizes: list[int]
    startup_s: float
    costs: dict[str, list[float]]  # program -> CPU seconds at each size (inf: failed/timed out)
    exponents: dict[str, float | None]

    def as_dict(self) -> dict:
        return {
            "sizes": self.sizes,
            "startup_s": self.startup_s,
            "costs": {
                name: [c if math.isfinite(c) else None for c in row]
                for name, row in self.costs.items()
            },
            "exponents": self.exponents,
        }


def growing_sizes(size: int, fractions=SIZE_FRACTIONS) -> list[int]:
    return sorted({max(1, round(size * f)) for f in fractions})


def measure_scaling(
    programs: dict[str, str],
    generator_code: str,
    size: int,
    seed: int,
    *,
    cap_s: float = 10.0,
    repeats: int = 3,
    fractions=SIZE_FRACTIONS,
    workdir: Path | None = None,
) -> ScalingReport:
    """Exponents of Python `programs` ({name: source}) on the generator's inputs at
    `fractions` of `size` (seeded by `seed`), the fastest of `repeats` runs at each size,
    every run on one core (execution.affinity). A program that fails or runs past
    `cap_s` has no point there, nor at any larger size. The start-up cost is the empty
    program's fastest run over all sizes. ValueError when the generator fails."""
    with pinned_core():
        return _measure_scaling(
            programs, generator_code, size, seed, cap_s, repeats, fractions, workdir
        )


def _measure_scaling(programs, generator_code, size, seed, cap_s, repeats, fractions, workdir):
    sizes = growing_sizes(size, fractions)
    root = Path(tempfile.mkdtemp(prefix="codeopt-scaling-", dir=workdir))
    root.chmod(0o711)
    try:
        cases = []
        for value in sizes:
            path = root / f"input-{value}.in"
            made = run_generator(generator_code, seed, value, path, workdir=root)
            if not made.ok:
                raise ValueError(f"generator at SIZE={value}: {made.message}")
            cases.append(Case(f"size-{value}", path, path, "optimization"))
        listed = [Program(name, source, "python") for name, source in programs.items()]
        listed.append(Program("__startup__", STARTUP_PROGRAM, "python"))
        limits = Limits(cpu_seconds=cap_s, wall_seconds=3 * cap_s + 5)
        best = {p.name: [math.inf] * len(cases) for p in listed}
        stopped = dict.fromkeys(best, len(cases))  # a program's first size that failed
        for _ in range(repeats):  # each round: every program at every size
            for index, case in enumerate(cases):
                running = [p for p in listed if index < stopped[p.name]]
                if not running:
                    continue
                (root / "out").mkdir()
                outputs = collect_outputs(
                    running, [case], root / "out", limits=limits, workdir=root
                )
                shutil.rmtree(root / "out", ignore_errors=True)
                for name, by_case in outputs.items():
                    result, _ = by_case[case.name]
                    if result.verdict == "OK" and result.cpu_s is not None:
                        best[name][index] = min(best[name][index], result.cpu_s)
                    else:  # failed or past the cap: no point here nor at a larger size
                        stopped[name] = index
        costs: dict[str, list[float]] = {
            name: [cost if index < stopped[name] else math.inf for index, cost in enumerate(row)]
            for name, row in best.items()
        }
        startup = min(costs.pop("__startup__"))
        startup = startup if math.isfinite(startup) else 0.0
        return ScalingReport(
            sizes,
            startup,
            costs,
            {name: scaling_exponent(sizes, row, startup) for name, row in costs.items()},
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
