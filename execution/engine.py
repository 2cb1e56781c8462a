"""Run a program on tests in the sandbox: compile once, execute, check, measure. No Django.

Verdict of one execution, first match wins:
1. killed by the wall clock                          -> TIME_LIMIT
2. output (or any file) over its cap                 -> OUTPUT_LIMIT
3. CPU time over the limit, or SIGXCPU               -> TIME_LIMIT
4. failed after the kernel OOM-killed in the run's memory cgroup (without a memory cgroup:
   MemoryError, bad_alloc, or near the limit when killed)
                                                     -> MEMORY_LIMIT
5. non-zero exit or a signal                         -> RUNTIME_ERROR
6. output differs from the answer                    -> WRONG_ANSWER, else OK
A program that does not compile gets COMPILE_ERROR for every test, with the compiler's text.
A run the sandbox itself could not carry out, after retries.SANDBOX_ATTEMPTS starts, is
SANDBOX_ERROR: no verdict about the program (callers re-measure or fail the job as retryable).
"""

from __future__ import annotations

import math
import re
import shutil
import signal
import statistics
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from execution.affinity import pinned_core
from execution.checker import CheckerSettings, check_output
from execution.isolation import SandboxError
from execution.retries import SANDBOX_ERROR, run_retried
from execution.sandbox import Limits, RunResult, prepare_box

VERDICTS = (
    "OK",
    "WRONG_ANSWER",
    "TIME_LIMIT",
    "MEMORY_LIMIT",
    "RUNTIME_ERROR",
    "COMPILE_ERROR",
    "OUTPUT_LIMIT",
    SANDBOX_ERROR,
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
        run.memory_limit_hit  # the run's memory cgroup says so: the limit was reached
        or run.memory_limit_hit is None  # no memory cgroup here: what the program printed
        and (
            "MemoryError" in run.stderr_tail
            or "bad_alloc" in run.stderr_tail
            or run.peak_kb >= 0.95 * limits.memory_mb * 1024
        )
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
    return _compile(list(spec.compile_argv), box, build_dir, box / spec.artifact)


def _compile(
    argv: list[str], box: Path, build_dir: Path, artifact: Path
) -> tuple[Path | None, str]:
    run = run_retried(
        argv,
        box=box,
        limits=COMPILE_LIMITS,
        stdin_path=None,
        stdout_path=build_dir / "compile.out",
        stderr_path=build_dir / "compile.err",
        keep_box_writes=True,  # the compiled program
    )
    message = _excerpt(build_dir / "compile.err")
    if run.timed_out_wall or run.exit_code != 0 or not artifact.exists():
        reason = "compiler killed after the time limit" if run.timed_out_wall else ""
        return None, (reason + "\n" + message).strip()
    return artifact, message


class ValidatorError(RuntimeError):
    """The problem's custom output validator failed: the problem is at fault, not the program."""


@dataclass(frozen=True)
class Validator:
    """A compiled Kattis output validator: `validator input answer feedback_dir [flags] <
    output`, exit 42 accepted, 43 wrong answer."""

    artifact: Path
    flags: tuple[str, ...] = ()


def compile_validator(sources: list[Path], build_dir: Path) -> Validator:
    box = prepare_box(build_dir)
    for source in sources:
        shutil.copy2(source, box / source.name)
    for header in {p for s in sources for p in s.parent.glob("*.h")}:
        shutil.copy2(header, box / header.name)
    argv = [
        "/usr/bin/g++",
        "-O2",
        "-std=gnu++17",
        "-o",
        "/box/validator",
        *[f"/box/{s.name}" for s in sources],
    ]
    artifact, message = _compile(argv, box, build_dir, box / "validator")
    if artifact is None:
        raise ValidatorError(f"the output validator does not compile:\n{message}")
    return Validator(artifact)


def _validate(validator: Validator, test: Case, output: Path, work: Path) -> tuple[bool, str]:
    vwork = work / "validator"
    vwork.mkdir()
    box = prepare_box(vwork)
    shutil.copy2(validator.artifact, box / "validator")
    (box / "feedback").mkdir()
    run = run_retried(
        ["/box/validator", "/data/input", "/data/answer", "/box/feedback/", *validator.flags],
        box=box,
        limits=COMPILE_LIMITS,
        stdin_path=output,
        stdout_path=vwork / "stdout",
        stderr_path=vwork / "stderr",
        read_only=((test.input_path, "/data/input"), (test.answer_path, "/data/answer")),
        keep_box_writes=True,  # its feedback
    )
    message_file = box / "feedback" / "judgemessage.txt"
    message = message_file.read_text(errors="replace")[:500] if message_file.exists() else ""
    if run.exit_code == 42:
        return True, ""
    if run.exit_code == 43:
        return False, message or "the output validator rejected the output"
    raise ValidatorError(
        f"output validator: exit {run.exit_code}, signal {run.signal}: {run.stderr_tail[-300:]}"
    )


def run_once(
    artifact: Path,
    language: str,
    test: Case,
    limits: Limits,
    work: Path,
    *,
    mode: str,
    checker: CheckerSettings,
    validator: Validator | None = None,
    keep_output: Path | None = None,
) -> CaseResult:
    """One execution of a compiled program on one test, in a fresh box. With `keep_output`,
    the output of a run that finished is moved there and not checked (the test's answer is
    not known yet: the caller decides by consensus)."""
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
    try:
        run = run_retried(
            argv,
            box=box,
            limits=limits,
            stdin_path=test.input_path,
            stdout_path=out,
            stderr_path=err,
            env=env,
        )
    except SandboxError as exc:
        return sandbox_failure(test.name, exc)
    verdict, message = _verdict(run, limits, out.stat().st_size)
    instructions = None
    stderr_text = run.stderr_tail
    if mode == "instructions":
        counts = _INSTRUCTIONS.findall(err.read_text(errors="replace"))
        instructions = int(counts[-1].replace(",", "")) if counts else None
    excerpt = _excerpt(out)
    if keep_output is not None:
        if verdict == "OK":
            shutil.move(out, keep_output)
    elif verdict == "OK" and validator is not None:
        try:
            accepted, why = _validate(validator, test, out, work)
        except SandboxError as exc:
            return sandbox_failure(test.name, exc)
        if not accepted:
            verdict, message = "WRONG_ANSWER", why
    elif verdict == "OK":
        result = check_output(test.answer_path.read_bytes(), out.read_bytes(), checker)
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
        stdout_excerpt=excerpt,
        stderr_excerpt=stderr_text[-EXCERPT_BYTES:],
    )


def sandbox_failure(name: str, error: SandboxError) -> CaseResult:
    """The result of a run the sandbox could not carry out: no times, no samples (a later
    repeat that fails so adds nothing to the test's samples)."""
    return CaseResult(name, SANDBOX_ERROR, None, None, 0, message=f"sandbox error: {error}")


@dataclass(frozen=True)
class Program:
    name: str
    source: str
    language: str


def _check_job(programs: list[Program], mode: str, repeats: int) -> None:
    for program in programs:
        if program.language not in LANGUAGES:
            raise ValueError(f"language: {program.language!r} is not one of {', '.join(LANGUAGES)}")
    if mode not in MODES:
        raise ValueError(f"mode: {mode!r} is not one of {', '.join(MODES)}")
    if repeats < 1:
        raise ValueError("repeats: must be at least 1")


def _compile_all(
    programs: list[Program], tests: list[Case], mode: str, root: Path
) -> tuple[dict[str, Path], dict[str, ExecutionReport]]:
    """Compile every program once; one that does not compile gets COMPILE_ERROR on every
    test. Returns the artifacts of those that compiled and a report for each program."""
    artifacts: dict[str, Path] = {}
    reports: dict[str, ExecutionReport] = {}
    for index, program in enumerate(programs):
        source_bytes = len(program.source.encode())
        if source_bytes > MAX_SOURCE_BYTES:
            artifact = None
            message = f"source is {source_bytes} bytes; at most {MAX_SOURCE_BYTES}"
        else:
            try:
                artifact, message = compile_program(
                    program.source, program.language, root / f"build-{index}"
                )
            except SandboxError as exc:  # the compiler never ran: nothing about the program
                results = [sandbox_failure(t.name, exc) for t in tests]
                reports[program.name] = ExecutionReport(SANDBOX_ERROR, mode, results, str(exc))
                continue
        if artifact is None:
            results = [
                CaseResult(t.name, "COMPILE_ERROR", None, None, 0, message=message) for t in tests
            ]
            reports[program.name] = ExecutionReport("COMPILE_ERROR", mode, results, message)
        else:
            artifacts[program.name] = artifact
            reports[program.name] = ExecutionReport("OK", mode, [], message)
    return artifacts, reports


def collect_outputs(
    programs: list[Program],
    inputs: list[Case],
    output_dir: Path,
    *,
    limits: Limits = DEFAULT_LIMITS,
    workdir: Path | None = None,
) -> dict[str, dict[str, tuple[CaseResult, Path | None]]]:
    """Run every program once on every input and keep what it printed, unchecked (for
    consensus on tests that have no answer yet; a Case's answer_path is not read).

    Returns {program: {input name: (result, output file or None when the run failed)}};
    output files are written under `output_dir`, which the caller owns."""
    _check_job(programs, "cpu", 1)
    root = Path(tempfile.mkdtemp(prefix="codeopt-outputs-", dir=workdir))
    root.chmod(0o711)
    try:
        artifacts, reports = _compile_all(programs, inputs, "cpu", root)
        collected: dict[str, dict[str, tuple[CaseResult, Path | None]]] = {}
        for program_index, program in enumerate(programs):
            collected[program.name] = {}
            for input_index, case in enumerate(inputs):
                if program.name not in artifacts:
                    result = reports[program.name].tests[input_index]
                    collected[program.name][case.name] = (result, None)
                    continue
                kept = output_dir / f"{program_index}-{input_index}.out"
                result = run_once(
                    artifacts[program.name],
                    program.language,
                    case,
                    limits,
                    root / "run",
                    mode="cpu",
                    checker=DEFAULT_CHECKER,
                    keep_output=kept,
                )
                collected[program.name][case.name] = (
                    result,
                    kept if result.verdict == "OK" else None,
                )
        return collected
    finally:
        shutil.rmtree(root, ignore_errors=True)


def measure(
    programs: list[Program],
    tests: list[Case],
    *,
    limits: Limits = DEFAULT_LIMITS,
    mode: str = "cpu",
    repeats: int = 5,
    checker: CheckerSettings = DEFAULT_CHECKER,
    validator_sources: list[Path] | None = None,
    validator_flags: tuple[str, ...] = (),
    workdir: Path | None = None,
    on_progress: Callable[[int, int, str], None] | None = None,
    settle: float | None = None,
    stop_at_failure: bool = False,
) -> dict[str, ExecutionReport]:
    """Measure several programs on the same tests, interleaved: for each test, round after
    round, every program runs once (in a rotated order), so a reference and a candidate see
    the same machine state. A program's first run on a test decides its verdict; a failed
    test is not repeated. `instructions` mode runs once (its counts do not vary). Every run
    of the job is on one core (execution.affinity). With `stop_at_failure` (as the
    Kattis judge does) a program that failed a test runs on no later test: its report ends
    with the failed one.

    1. Compile every program (and the custom validator, if any) once.
    2. For each test, `repeats` rounds over the programs still correct on it; with
       `settle`, the rounds stop after SETTLE_MIN_RUNS once every program's two lowest
       times agree within that share (see `settled`).
    3. Times are the medians of the rounds; the samples are kept for noise statistics and
       for `lowest_cost`.
    """
    _check_job(programs, mode, repeats)
    if mode == "instructions":
        repeats = 1
    options = dict(
        limits=limits,
        mode=mode,
        repeats=repeats,
        checker=checker,
        validator_sources=validator_sources,
        validator_flags=validator_flags,
        workdir=workdir,
        on_progress=on_progress,
        settle=settle,
        stop_at_failure=stop_at_failure,
    )
    with pinned_core():
        return _measure_pinned(programs, tests, **options)


def _measure_pinned(
    programs: list[Program],
    tests: list[Case],
    *,
    limits: Limits,
    mode: str,
    repeats: int,
    checker: CheckerSettings,
    validator_sources: list[Path] | None,
    validator_flags: tuple[str, ...],
    workdir: Path | None,
    on_progress: Callable[[int, int, str], None] | None,
    settle: float | None,
    stop_at_failure: bool,
) -> dict[str, ExecutionReport]:
    """`measure` on the core it holds."""
    root = Path(tempfile.mkdtemp(prefix="codeopt-exec-", dir=workdir))
    root.chmod(0o711)  # the sandbox user passes through to its box, and sees nothing else
    try:
        validator = None
        if validator_sources:
            validator = compile_validator(validator_sources, root / "validator-build")
            validator = Validator(validator.artifact, tuple(validator_flags))
        artifacts, reports = _compile_all(programs, tests, mode, root)
        running = [p for p in programs if p.name in artifacts]
        for test_index, test in enumerate(tests):
            if on_progress is not None:
                on_progress(test_index, len(tests), test.name)
            if stop_at_failure:
                running = [
                    p for p in running if all(r.verdict == "OK" for r in reports[p.name].tests)
                ]
            results: dict[str, CaseResult] = {}
            for round_index in range(repeats):
                if results and _all_settled(results.values(), mode, settle):
                    break  # every program in together: rounds stay symmetric (see `settled`)
                shift = round_index % max(1, len(running))
                for program in running[shift:] + running[:shift]:
                    previous = results.get(program.name)
                    if previous is not None and previous.verdict != "OK":
                        continue
                    result = run_once(
                        artifacts[program.name],
                        program.language,
                        test,
                        limits,
                        root / "run",
                        mode=mode,
                        checker=checker,
                        validator=validator,
                    )
                    if previous is None:
                        results[program.name] = result
                    else:
                        previous.cpu_samples += result.cpu_samples
                        previous.wall_samples += result.wall_samples
                        previous.peak_kb = max(previous.peak_kb, result.peak_kb)
            for program in running:
                result = results[program.name]
                if result.cpu_samples:
                    result.cpu_s = statistics.median(result.cpu_samples)
                if result.wall_samples:  # none after a SANDBOX_ERROR
                    result.wall_s = statistics.median(result.wall_samples)
                reports[program.name].tests.append(result)
        for name in artifacts:
            report = reports[name]
            report.verdict = next((r.verdict for r in report.tests if r.verdict != "OK"), "OK")
        return reports
    finally:
        shutil.rmtree(root, ignore_errors=True)


SETTLE_MIN_RUNS = 3
"""With `settle`, the fewest runs a program gets on a test before it may stop early."""


def settled(samples: list[float], settle: float | None) -> bool:
    """Enough runs to trust the lowest: at least SETTLE_MIN_RUNS, and the two lowest within
    `settle` of each other (noise on a shared host only adds time, so two low runs that
    agree are the program's own cost). A test's rounds stop only once every program on it
    has settled: a program that stopped alone during a slow spell would keep a high lowest
    while the references it is ranked against ran on into a quiet one."""
    if settle is None or len(samples) < SETTLE_MIN_RUNS:
        return False
    low, second = sorted(samples)[:2]
    return second - low <= settle * low


def _all_settled(results, mode: str, settle: float | None) -> bool:
    return all(
        r.verdict != "OK" or settled(r.cpu_samples if mode == "cpu" else r.wall_samples, settle)
        for r in results
    )


def lowest_cost(result: CaseResult, mode: str) -> float | None:
    """The cost a noise-aware ranking uses: the lowest of the repeats for CPU and wall time
    (preemption and cache misses from neighbours only ever add time, so the minimum is the
    most repeatable estimate: docs/metrics.md), the count for instructions."""
    if mode == "instructions":
        return result.instructions
    samples = result.cpu_samples if mode == "cpu" else result.wall_samples
    return min(samples) if samples else None


def execute(source: str, language: str, tests: list[Case], **options) -> ExecutionReport:
    """`measure` of a single program (options as there)."""
    return measure([Program("program", source, language)], tests, **options)["program"]


def cost_of(result: CaseResult, mode: str) -> float | None:
    """The number a mode ranks by: CPU seconds, wall seconds or instructions."""
    return {"cpu": result.cpu_s, "wall": result.wall_s, "instructions": result.instructions}[mode]
