"""Run a program on tests in the sandbox: compile once, execute, check, measure. No Django.

Verdict of one execution, first match wins:
1. killed by the wall clock                          -> TIME_LIMIT
2. output (or any file) over its cap                 -> OUTPUT_LIMIT
3. CPU time over the limit, or SIGXCPU               -> TIME_LIMIT
4. failed while out of memory (MemoryError, bad_alloc, or near the limit when killed)
                                                     -> MEMORY_LIMIT
5. non-zero exit or a signal                         -> RUNTIME_ERROR
6. output differs from the answer                    -> WRONG_ANSWER, else OK
A program that does not compile gets COMPILE_ERROR for every test, with the compiler's text.
"""

from __future__ import annotations

import math
import re
import shutil
import signal
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from workers.execution.checker import CheckerSettings, check_output
from workers.execution.sandbox import Limits, RunResult, prepare_box, run_sandboxed

VERDICTS = (
    "OK",
    "WRONG_ANSWER",
    "TIME_LIMIT",
    "MEMORY_LIMIT",
    "RUNTIME_ERROR",
    "COMPILE_ERROR",
    "OUTPUT_LIMIT",
)
MODES = ("cpu", "instructions", "wall")
EXCERPT_BYTES = 2000
MAX_SOURCE_BYTES = 1024 * 1024  # larger sources are refused before anything runs
DEFAULT_LIMITS = Limits()
DEFAULT_CHECKER = CheckerSettings()
COMPILE_LIMITS = Limits(cpu_seconds=30, wall_seconds=60, memory_mb=2048, processes=64, output_mb=64)


@dataclass(frozen=True)
class Language:
    source_name: str
    compile_argv: tuple[str, ...] | None  # run in the sandbox, in /box
    run_argv: tuple[str, ...]
    artifact: str  # what the compiled program is, in /box


LANGUAGES = {
    "python": Language("main.py", None, ("/usr/bin/python3", "/box/main.py"), "main.py"),
    "cpp": Language(
        "main.cpp",
        ("/usr/bin/g++", "-O2", "-std=gnu++17", "-pipe", "-o", "/box/main", "/box/main.cpp"),
        ("/box/main",),
        "main",
    ),
}


@dataclass(frozen=True)
class Case:
    name: str
    input_path: Path
    answer_path: Path
    kind: str = "correctness"  # sample | correctness | optimization


@dataclass
class CaseResult:
    name: str
    verdict: str
    cpu_s: float | None  # median over repeats
    wall_s: float | None
    peak_kb: int
    instructions: int | None = None
    exit_code: int | None = None
    signal: int | None = None
    cpu_samples: list[float] = field(default_factory=list)
    wall_samples: list[float] = field(default_factory=list)
    message: str = ""
    stdout_excerpt: str = ""
    stderr_excerpt: str = ""


@dataclass
class ExecutionReport:
    verdict: str
    mode: str
    tests: list[CaseResult]
    compile_message: str = ""


def _verdict(run: RunResult, limits: Limits, output_size: int) -> tuple[str, str]:
    if run.timed_out_wall:
        return "TIME_LIMIT", f"killed after {limits.wall_seconds:g} s of wall time"
    if (
        run.signal == signal.SIGXFSZ
        or output_size >= limits.output_mb * 1024 * 1024
        or ("File too large" in run.stderr_tail and run.exit_code)
    ):
        return "OUTPUT_LIMIT", f"output over {limits.output_mb} MB"
    if run.signal == signal.SIGXCPU or (
        not math.isnan(run.cpu_s) and run.cpu_s > limits.cpu_seconds
    ):
        return "TIME_LIMIT", f"{run.cpu_s:.3f} s of CPU over the {limits.cpu_seconds:g} s limit"
    failed = run.exit_code != 0 or run.signal is not None
    if failed and (
        "MemoryError" in run.stderr_tail
        or "bad_alloc" in run.stderr_tail
        or run.peak_kb >= 0.95 * limits.memory_mb * 1024
    ):
        return "MEMORY_LIMIT", f"out of memory (limit {limits.memory_mb} MB)"
    if failed:
        how = f"signal {run.signal}" if run.signal is not None else f"exit code {run.exit_code}"
        return "RUNTIME_ERROR", how
    return "OK", ""


def _excerpt(path: Path) -> str:
    with open(path, "rb") as handle:
        return handle.read(EXCERPT_BYTES).decode(errors="replace")


_INSTRUCTIONS = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)", re.MULTILINE)


def _instrumented(argv: tuple[str, ...]) -> list[str]:
    return [
        "/usr/bin/valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        "--log-fd=2",
        *argv,
    ]


def compile_program(source: str, language: str, build_dir: Path) -> tuple[Path | None, str]:
    """Write (and for C++ compile) the program once; returns (artifact, compiler message)."""
    spec = LANGUAGES[language]
    box = prepare_box(build_dir)
    (box / spec.source_name).write_text(source)
    if spec.compile_argv is None:
        return box / spec.artifact, ""
    run = run_sandboxed(
        list(spec.compile_argv),
        box=box,
        limits=COMPILE_LIMITS,
        stdin_path=None,
        stdout_path=build_dir / "compile.out",
        stderr_path=build_dir / "compile.err",
    )
    message = _excerpt(build_dir / "compile.err")
    if run.timed_out_wall or run.exit_code != 0 or not (box / spec.artifact).exists():
        reason = "compiler killed after the time limit" if run.timed_out_wall else ""
        return None, (reason + "\n" + message).strip()
    return box / spec.artifact, message


def run_once(
    artifact: Path,
    language: str,
    test: Case,
    limits: Limits,
    work: Path,
    *,
    mode: str,
    checker: CheckerSettings,
) -> CaseResult:
    """One execution of a compiled program on one test, in a fresh box."""
    spec = LANGUAGES[language]
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    box = prepare_box(work)
    shutil.copy2(artifact, box / spec.artifact)
    argv = list(spec.run_argv)
    env = {}
    if mode == "instructions":
        argv = _instrumented(spec.run_argv)
        env = {"PYTHONHASHSEED": "0"}
        limits = limits.scaled(40)
    out, err = work / "stdout", work / "stderr"
    run = run_sandboxed(
        argv,
        box=box,
        limits=limits,
        stdin_path=test.input_path,
        stdout_path=out,
        stderr_path=err,
        env=env,
    )
    verdict, message = _verdict(run, limits, out.stat().st_size)
    instructions = None
    stderr_text = run.stderr_tail
    if mode == "instructions":
        counts = _INSTRUCTIONS.findall(err.read_text(errors="replace"))
        instructions = int(counts[-1].replace(",", "")) if counts else None
    if verdict == "OK":
        result = check_output(
            test.answer_path.read_text(errors="replace"), out.read_text(errors="replace"), checker
        )
        if not result.ok:
            verdict, message = "WRONG_ANSWER", result.message
    cpu = None if math.isnan(run.cpu_s) else run.cpu_s
    return CaseResult(
        name=test.name,
        verdict=verdict,
        cpu_s=cpu,
        wall_s=run.wall_s,
        peak_kb=run.peak_kb,
        instructions=instructions,
        exit_code=run.exit_code,
        signal=run.signal,
        cpu_samples=[cpu] if cpu is not None else [],
        wall_samples=[run.wall_s],
        message=message,
        stdout_excerpt=_excerpt(out),
        stderr_excerpt=stderr_text[-EXCERPT_BYTES:],
    )


def execute(
    source: str,
    language: str,
    tests: list[Case],
    *,
    limits: Limits = DEFAULT_LIMITS,
    mode: str = "cpu",
    repeats: int = 5,
    checker: CheckerSettings = DEFAULT_CHECKER,
    workdir: Path | None = None,
) -> ExecutionReport:
    """Compile once, then run every test `repeats` times (once in `instructions` mode, which
    is deterministic); a test that fails on its first run is not repeated. Times are medians.
    """
    if language not in LANGUAGES:
        raise ValueError(f"language: {language!r} is not one of {', '.join(LANGUAGES)}")
    if mode not in MODES:
        raise ValueError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
    if repeats < 1:
        raise ValueError("repeats: must be at least 1")
    if len(source.encode()) > MAX_SOURCE_BYTES:
        message = f"source is {len(source.encode())} bytes; at most {MAX_SOURCE_BYTES}"
        results = [
            CaseResult(t.name, "COMPILE_ERROR", None, None, 0, message=message) for t in tests
        ]
        return ExecutionReport("COMPILE_ERROR", mode, results, compile_message=message)
    root = Path(tempfile.mkdtemp(prefix="codeopt-exec-", dir=workdir))
    root.chmod(0o711)  # the sandbox user passes through to its box, and sees nothing else
    try:
        artifact, message = compile_program(source, language, root / "build")
        if artifact is None:
            results = [
                CaseResult(t.name, "COMPILE_ERROR", None, None, 0, message=message) for t in tests
            ]
            return ExecutionReport("COMPILE_ERROR", mode, results, compile_message=message)
        results = []
        for test in tests:
            first = run_once(
                artifact, language, test, limits, root / "run", mode=mode, checker=checker
            )
            extra = repeats - 1 if (first.verdict == "OK" and mode != "instructions") else 0
            for _ in range(extra):
                again = run_once(
                    artifact, language, test, limits, root / "run", mode=mode, checker=checker
                )
                if again.cpu_s is not None:
                    first.cpu_samples.append(again.cpu_s)
                first.wall_samples.append(again.wall_s)
                first.peak_kb = max(first.peak_kb, again.peak_kb)
            if first.cpu_samples:
                first.cpu_s = statistics.median(first.cpu_samples)
            first.wall_s = statistics.median(first.wall_samples)
            results.append(first)
        overall = next((r.verdict for r in results if r.verdict != "OK"), "OK")
        return ExecutionReport(overall, mode, results, compile_message=message)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def cost_of(result: CaseResult, mode: str) -> float | None:
    """The number a mode ranks by: CPU seconds, wall seconds or instructions."""
    return {"cpu": result.cpu_s, "wall": result.wall_s, "instructions": result.instructions}[mode]
