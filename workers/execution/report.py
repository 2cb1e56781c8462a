"""Turn measured programs into the figures users read: per-test rows, speed percentile,
noise. Plain Python."""

from __future__ import annotations

from workers.execution.engine import CaseResult, ExecutionReport, cost_of
from workers.execution.noise import repeat_stats
from workers.execution.ranking import TIMED_OUT, Measured, speed_percentile


def measured(report: ExecutionReport, *, as_reference: bool) -> dict[str, Measured]:
    """Per-test costs for ranking. A time limit is TIMED_OUT: correct-but-slower for a
    reference, slower than every reference for the program."""
    out = {}
    for result in report.tests:
        if result.verdict == "TIME_LIMIT":
            out[result.name] = Measured(TIMED_OUT, as_reference)
            continue
        cost = cost_of(result, report.mode)
        out[result.name] = Measured(cost if cost is not None else TIMED_OUT, result.verdict == "OK")
    return out


def program_speed_percentile(
    program: ExecutionReport, references: list[ExecutionReport], ranked_tests: list[str]
) -> float | None:
    mine = measured(program, as_reference=False)
    theirs = [measured(r, as_reference=True) for r in references]
    return speed_percentile(mine, theirs, ranked_tests)


def test_row(result: CaseResult) -> dict:
    samples = result.cpu_samples if result.cpu_samples else []
    stats = repeat_stats(samples) if samples else None
    return {
        "name": result.name,
        "verdict": result.verdict,
        "cpu_s": result.cpu_s,
        "wall_s": result.wall_s,
        "peak_kb": result.peak_kb,
        "instructions": result.instructions,
        "repeats": len(result.wall_samples),
        "cpu_cv": stats.cv if stats else None,
        "message": result.message,
    }
