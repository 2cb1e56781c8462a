"""Turn measured programs into the figures users read: per-test rows, speed percentile,
noise. Plain Python."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from execution.engine import CaseResult, ExecutionReport, Program, lowest_cost, measure
from execution.isolation import active_isolation
from execution.noise import rank_jitter, repeat_stats
from execution.package import load_package
from execution.retries import SANDBOX_ERROR, SandboxCounts, counted
from execution.sandbox import Limits
from foundation.ranking import DEFAULT_TIES, TIMED_OUT, Measured, speed_percentile


def measured(report: ExecutionReport, *, as_reference: bool) -> dict[str, Measured]:
    """Per-test costs for ranking. A time limit is TIMED_OUT: correct-but-slower for a
    reference, slower than every reference for the program."""
    out = {}
    for result in report.tests:
        if result.verdict == "TIME_LIMIT":
            out[result.name] = Measured(TIMED_OUT, as_reference)
            continue
        cost = lowest_cost(result, report.mode)
        out[result.name] = Measured(cost if cost is not None else TIMED_OUT, result.verdict == "OK")
    return out


def program_speed_percentile(
    program: ExecutionReport, references: list[ExecutionReport], ranked_tests: list[str]
) -> float | None:
    """Ranked by the lowest of the repeats, ties by DEFAULT_TIES (docs/metrics.md)."""
    mine = measured(program, as_reference=False)
    theirs = [measured(r, as_reference=True) for r in references]
    return speed_percentile(mine, theirs, ranked_tests, DEFAULT_TIES)


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


def sandbox_summary(counts: SandboxCounts, reports: dict[str, ExecutionReport]) -> dict:
    """What a job stores about the sandbox: the mechanism, its failed starts, and the
    programs left without a verdict (SANDBOX_ERROR: the job failed, retryable)."""
    return {
        "isolation": active_isolation().kind,
        **counts.as_dict(),
        "unmeasured": sorted(n for n, r in reports.items() if r.verdict == SANDBOX_ERROR),
    }


def measure_package(
    package_dir: Path,
    source: str,
    language: str,
    *,
    mode: str = "cpu",
    repeats: int = 5,
    reference_folders: tuple[str, ...] = ("accepted",),
    on_progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """Measure one program on a problem package beside its reference solutions (interleaved)
    and return the figures as plain data: what `manage.py measure --json` prints and what a
    timing job stores. Raises PackageError for a bad package, ValueError for a bad argument.
    """
    package = load_package(package_dir)
    refs = [s for s in package.solutions if s.verdict_dir in reference_folders]
    programs = [Program("program", source, language)]
    programs += [Program(s.name, s.path.read_text(), s.language) for s in refs]
    limits = Limits(cpu_seconds=package.time_limit_s, wall_seconds=3 * package.time_limit_s + 2)
    with counted() as sandbox:
        reports = measure(
            programs,
            package.tests,
            limits=limits,
            mode=mode,
            repeats=repeats,
            checker=package.checker,
            validator_sources=package.validator_sources,
            validator_flags=tuple(package.validator_flags),
            on_progress=on_progress,
        )
    mine = reports["program"]
    others = [reports[s.name] for s in refs]
    executions = sum(len(r.wall_samples) for report in reports.values() for r in report.tests)
    return {
        "problem": package.name,
        "mode": mode,
        "verdict": mine.verdict,
        "compile_message": mine.compile_message,
        "tests": [test_row(r) for r in mine.tests],
        "speed_percentile": program_speed_percentile(mine, others, package.ranked_tests),
        "ranked_tests": len(package.ranked_tests),
        "executions": executions,
        "sandbox": sandbox_summary(sandbox, reports),
        "references": [
            {
                "name": s.name,
                "verdict": reports[s.name].verdict,
                "speed_percentile": program_speed_percentile(
                    reports[s.name],
                    [o for o in others if o is not reports[s.name]],
                    package.ranked_tests,
                ),
            }
            for s in refs
        ],
    }


def jitter_package(
    package_dir: Path,
    source: str,
    language: str,
    *,
    modes: tuple[str, ...] = ("wall", "cpu", "instructions"),
    repeats: int = 5,
    remeasure: int = 5,
    reference_folders: tuple[str, ...] = ("accepted",),
    on_progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """Re-measure one program `remeasure` times in each mode, independently (program and
    references each time), and report the spread of its speed percentile: the rank jitter."""
    out: dict = {"modes": {}, "executions": 0, "problem": None}
    sandbox: dict = {"isolation": active_isolation().kind, **SandboxCounts().as_dict()}
    sandbox["unmeasured"] = []
    steps = len(modes) * remeasure
    for m, mode in enumerate(modes):
        percentiles = []
        cvs = []
        for r in range(remeasure):
            if on_progress is not None:
                on_progress(m * remeasure + r, steps, f"{mode} #{r + 1}")
            result = measure_package(
                package_dir,
                source,
                language,
                mode=mode,
                repeats=repeats,
                reference_folders=reference_folders,
            )
            out["problem"] = result["problem"]
            out["executions"] += result["executions"]
            for key in ("errors", "gave_up"):
                sandbox[key] += result["sandbox"][key]
            sandbox["last_error"] = result["sandbox"]["last_error"] or sandbox["last_error"]
            sandbox["unmeasured"] = sorted(
                {*sandbox["unmeasured"], *result["sandbox"]["unmeasured"]}
            )
            percentiles.append(result["speed_percentile"])
            cvs += [t["cpu_cv"] for t in result["tests"] if t["cpu_cv"] is not None]
        out["modes"][mode] = {
            "percentiles": percentiles,
            "jitter": rank_jitter(percentiles),
            "cpu_cvs": cvs,
        }
    out["sandbox"] = sandbox
    return out
