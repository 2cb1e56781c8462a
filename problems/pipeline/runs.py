"""The sandboxed runs the construction stages and the generator validation share, for one
problem in one work folder: generate an input, collect the references' outputs, look for
their consensus, catch wrong references, probe a SIZE. Plain Python.

Each run is counted in `executions`. Generated inputs and SIZE probes are kept for the
build: the validation of a generator probes its largest SIZE exactly as stage 3's size
search starts, and stage 3 then reads that probe instead of running it again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

from execution.engine import (
    Case,
    CaseResult,
    ExecutionReport,
    Program,
    collect_outputs,
    lowest_cost,
    measure,
)
from execution.generate import run_generator
from execution.isolation import SandboxError
from execution.retries import SANDBOX_ERROR
from execution.sandbox import Limits
from problems.pipeline.consensus import Consensus, find_consensus
from problems.pipeline.model import PipelineConfig, SourceProblem

EMPTY_PROGRAMS = {"python": "pass\n", "cpp": "int main() { return 0; }\n"}

Outputs = dict[str, dict[str, tuple[CaseResult, Path | None]]]  # program -> input -> run


def derive_seed(*parts: object) -> int:
    """A generator seed that depends only on what the test is for (rebuilds are identical)."""
    return int(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def probe_seed(slug: str, generator: str, size: int, index: int = 0) -> int:
    """The seed of stage 3's optimization input `index` at `size`."""
    return derive_seed(slug, generator, "optimization", size, index)


def limits_for(cpu_seconds: float) -> Limits:
    return Limits(cpu_seconds=cpu_seconds, wall_seconds=3 * cpu_seconds + 2)


def executions_of(reports: dict[str, ExecutionReport]) -> int:
    return sum(len(r.wall_samples) for report in reports.values() for r in report.tests)


def failing(reports: dict[str, ExecutionReport], programs: list[Program]) -> set[str]:
    """The programs of `programs` that failed a test of `reports` (wrong references caught)."""
    return {p.name for p in programs if any(r.verdict != "OK" for r in reports[p.name].tests)}


def _refuse_sandbox_errors(results) -> None:
    """A build must never store SANDBOX_ERROR as a reference's verdict: it fails instead, and
    can be run again."""
    failed = [r for r in results if r.verdict == SANDBOX_ERROR]
    if failed:
        raise SandboxError(
            f"{len(failed)} run(s) failed in the sandbox, not the program: {failed[0].message}"
        )


@dataclass
class Generated:
    """One generator run: the input as a Case (its answer path is the input: unchecked), or
    None with the reason."""

    case: Case | None
    message: str  # why it failed; empty when it did not
    size_bytes: int
    sha256: str
    over_cap: bool = False  # it printed more than PipelineConfig.max_input_bytes


@dataclass
class Probe:
    """One optimization candidate at a SIZE, every correct reference run once on it."""

    seed: int
    case: Case
    outputs: Outputs
    costs: dict[str, float]  # CPU seconds; inf when the run did not finish
    cap_s: float  # the runs were stopped at this many CPU seconds


class ProblemRuns:
    """The sandboxed runs of one problem's build in `workdir` (which the caller removes)."""

    def __init__(self, problem: SourceProblem, config: PipelineConfig, workdir: Path):
        self.problem = problem
        self.config = config
        self.workdir = workdir
        self.executions = 0
        self.verify_limits = limits_for(problem.time_limit_s * config.verify_time_factor)
        self._generated: dict[tuple, Generated] = {}
        self._probes: dict[tuple, Probe] = {}
        self._startup: float | None = None

    # -- generators ------------------------------------------------------------------------
    def generate(self, name: str, code: str, seed: int, size: int, again: bool = False):
        """`name`'s input for (seed, size): the first run's result is kept for the build;
        `again` runs it once more into a file of its own (the determinism check). An input
        over `max_input_bytes` is a failure (the problem's size cap)."""
        key = (name, hashlib.sha256(code.encode()).hexdigest(), seed, size)
        if not again and key in self._generated:
            return self._generated[key]
        path = self.workdir / f"{name}-{seed}-{size}{'-again' if again else ''}.in"
        cpu = self.config.generator_cpu_s
        limits = Limits(cpu_seconds=cpu, wall_seconds=2 * cpu + 5, memory_mb=2048, output_mb=256)
        made = run_generator(code, seed, size, path, limits=limits, workdir=self.workdir)
        self.executions += 1
        cap = self.config.max_input_bytes
        if made.ok and made.size_bytes > cap:
            path.unlink(missing_ok=True)
            message = f"an input of {made.size_bytes} bytes, over the {cap}-byte cap"
            generated = Generated(None, message, made.size_bytes, made.sha256, over_cap=True)
        elif made.ok:
            case = Case(f"{name}-{seed}-{size}{'-again' if again else ''}", path, path)
            generated = Generated(case, "", made.size_bytes, made.sha256)
        else:
            generated = Generated(None, made.message, 0, "")
        if not again:
            self._generated[key] = generated
        return generated

    # -- references ------------------------------------------------------------------------
    def output_dir(self) -> Path:
        """A fresh folder per batch of outputs (a later batch must not overwrite them)."""
        return Path(tempfile.mkdtemp(prefix="outputs-", dir=self.workdir))

    def outputs(
        self, programs: list[Program], cases: list[Case], limits: Limits | None = None
    ) -> Outputs:
        """engine.collect_outputs (one run each, at the stage-1 limits unless given),
        refusing SANDBOX_ERROR."""
        outputs = collect_outputs(
            programs,
            cases,
            self.output_dir(),
            limits=limits or self.verify_limits,
            workdir=self.workdir,
        )
        _refuse_sandbox_errors(r for runs in outputs.values() for r, _ in runs.values())
        self.executions += len(programs) * len(cases)
        return outputs

    def agree(
        self, case: Case, outputs: Outputs, programs: list[Program], min_agree: int | None = None
    ) -> Consensus:
        """The consensus of `programs` on `case` (at least `min_agree` of them, default the
        config's, and a strict majority)."""
        return find_consensus(
            {p.name: outputs[p.name][case.name][1] for p in programs},
            self.problem.checker,
            min_agree=self.config.min_agree if min_agree is None else min_agree,
        )

    def measure(self, programs: list[Program], cases: list[Case], **options):
        """engine.measure in the work folder, refusing SANDBOX_ERROR."""
        reports = measure(programs, cases, workdir=self.workdir, **options)
        _refuse_sandbox_errors(r for report in reports.values() for r in report.tests)
        self.executions += executions_of(reports)
        return reports

    def caught(self, programs: list[Program], cases: list[Case]) -> set[str]:
        """The programs (wrong references) that fail one of `cases`, whose answers are the
        consensus: one run each at the stage-1 limits, checked as the problem checks."""
        if not programs or not cases:
            return set()
        reports = self.measure(
            programs,
            cases,
            limits=self.verify_limits,
            repeats=1,
            checker=self.problem.checker,
            stop_at_failure=True,
        )
        return failing(reports, programs)

    def startup_s(self) -> float:
        """CPU seconds of an empty program in the ranking language (the lowest of 3 pinned
        runs): the part of every measured time that is not the program's work."""
        if self._startup is None:
            language = self.config.ranking_language or "python"
            empty = self.workdir / "empty.in"
            empty.write_bytes(b"")
            reports = self.measure(
                [Program("empty", EMPTY_PROGRAMS[language], language)],
                [Case("empty", empty, empty)],
                repeats=3,
            )
            self._startup = lowest_cost(reports["empty"].tests[0], "cpu") or 0.0
        return self._startup

    def lowest_cpu_s(self, program: Program, probe: Probe, runs: int) -> float | None:
        """The lowest CPU seconds of `runs` more runs of `program` on `probe`'s input, at its
        cap and memory limit; None when one did not finish. One run on a loaded host can be
        slower by chance: a decision made on it is confirmed this way."""
        limits = dataclasses.replace(limits_for(probe.cap_s), memory_mb=self.problem.memory_mb)
        times = []
        for _ in range(runs):  # its output is not checked: a probe's input has no answer
            result, _ = self.outputs([program], [probe.case], limits)[program.name][probe.case.name]
            if result.verdict != "OK" or result.cpu_s is None:
                return None
            times.append(result.cpu_s)
        return min(times)

    def probe(
        self,
        name: str,
        code: str,
        programs: list[Program],
        size: int,
        index: int = 0,
        cap_s: float | None = None,
    ) -> Probe | None:
        """Generate stage 3's input `index` at `size` and run every program of `programs`
        once on it, stopped at 1.5 x T_slow or `cap_s`, within the problem's memory limit;
        None when the generator failed (`generate` with the same seed says why). Kept for
        the build."""
        cap = cap_s or 1.5 * self.config.slow_target_s
        key = (name, code, size, index, cap, tuple(p.name for p in programs))
        if key in self._probes:
            return self._probes[key]
        seed = probe_seed(self.problem.slug, name, size, index)
        case = self.generate(name, code, seed, size).case
        if case is None:
            return None
        limits = dataclasses.replace(limits_for(cap), memory_mb=self.problem.memory_mb)
        outputs = self.outputs(programs, [case], limits)
        costs = {}
        for program in programs:
            result, path = outputs[program.name][case.name]
            costs[program.name] = result.cpu_s if path is not None else math.inf
        self._probes[key] = Probe(seed, case, outputs, costs, cap)
        return self._probes[key]
