"""The five stages of the construction pipeline, for one problem. Plain Python.

Each stage returns None when the problem passes it, or the reason it stops there; what it
learnt goes into `outcome.report[<stage>]` (shown on the problem page).
"""

from __future__ import annotations

import hashlib
import math
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from scipy.stats import spearmanr

from problems.pipeline.consensus import find_consensus
from problems.pipeline.model import (
    NewTest,
    PipelineConfig,
    ProblemOutcome,
    Runtime,
    SourceProblem,
)
from workers.execution.engine import (
    LANGUAGES,
    Case,
    ExecutionReport,
    Program,
    ValidatorError,
    collect_outputs,
    measure,
)
from workers.execution.generate import run_generator
from workers.execution.sandbox import Limits

MIN_COST_S = 1e-3  # a ratio's denominator floor: CPU time below a millisecond is start-up noise


def derive_seed(*parts: object) -> int:
    """A generator seed that depends only on what the test is for (rebuilds are identical)."""
    return int(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:12], 16)


def split_of(slug: str, config: PipelineConfig) -> str:
    """Deterministic train/test split: a hash of the seed and the slug against the fraction."""
    digest = hashlib.sha256(f"{config.split_seed}:{slug}".encode()).digest()
    return "test" if int.from_bytes(digest[:8], "big") / 2**64 < config.test_fraction else "train"


def _executions(reports: dict[str, ExecutionReport]) -> int:
    return sum(len(r.wall_samples) for report in reports.values() for r in report.tests)


def _limits(cpu_seconds: float) -> Limits:
    return Limits(cpu_seconds=cpu_seconds, wall_seconds=3 * cpu_seconds + 2)


class ProblemBuilder:
    """Runs the stages for one problem, in `workdir` (which the caller removes)."""

    def __init__(
        self,
        problem: SourceProblem,
        config: PipelineConfig,
        workdir: Path,
        on_stage: Callable[[int, str], None] | None = None,
    ):
        self.problem = problem
        self.config = config
        self.workdir = workdir
        self.on_stage = on_stage
        self.outcome = ProblemOutcome(problem.slug)
        self.verify_limits = _limits(problem.time_limit_s * config.verify_time_factor)
        runnable = [s for s in problem.solutions if s.language in LANGUAGES]
        by_label = {
            label: [
                Program(s.name, s.code, s.language)
                for s in sorted(runnable, key=lambda s: s.name)
                if s.label == label
            ][: config.max_references]
            for label in ("accepted", "too_slow", "wrong")
        }
        self.correct = by_label["accepted"]
        self.too_slow = by_label["too_slow"]
        self.wrong = by_label["wrong"]
        self.not_runnable = len(problem.solutions) - len(runnable)
        self.wrong_caught: set[str] = set()
        self.failed_generators: dict[str, str] = {}
        self.test_paths: dict[str, tuple[Path, Path]] = {}  # new test -> (input, answer)

    def run(self) -> ProblemOutcome:
        stages = (
            ("verifying references", self.verify_references),
            ("correctness tests", self.correctness_tests),
            ("optimization tests", self.optimization_tests),
            ("discrimination", self.discrimination),
            ("split", self.split),
        )
        for index, (name, stage) in enumerate(stages):
            if self.on_stage is not None:
                self.on_stage(index, name)
            reason = stage()
            if reason:
                self.outcome.reason = reason
                return self.outcome
            self.outcome.stage_reached = index + 1
        self.outcome.kept = True
        return self.outcome

    # -- stage 1 -------------------------------------------------------------------------
    def verify_references(self) -> str | None:
        """Re-run every correct and wrong reference on the problem's own tests."""
        report = self.outcome.report["verify"] = {
            "correct": len(self.correct),
            "too_slow": len(self.too_slow),
            "wrong": len(self.wrong),
            "not_runnable": self.not_runnable,
            "limit_s": self.verify_limits.cpu_seconds,
        }
        if len(self.correct) < self.config.min_agree:
            return (
                f"{len(self.correct)} correct reference(s) runnable here; "
                f"at least {self.config.min_agree} needed"
            )
        tests = [Case(t.name, t.input_path, t.answer_path, t.kind) for t in self.problem.tests]
        try:
            reports = measure(
                self.correct + self.wrong,
                tests,
                limits=self.verify_limits,
                repeats=1,
                checker=self.problem.checker,
                validator_sources=self.problem.validator_sources or None,
                validator_flags=self.problem.validator_flags,
                workdir=self.workdir,
            )
        except ValidatorError as exc:
            return f"the problem's output validator fails: {exc}"
        self.outcome.executions += _executions(reports)
        failures = []
        for program in self.correct:
            failed = next((r for r in reports[program.name].tests if r.verdict != "OK"), None)
            if failed is not None:
                failures.append(f"{program.name}: {failed.verdict} on {failed.name}")
        self._note_caught(reports)
        report["failures"] = failures
        if failures:
            return "correct references fail on the problem's tests: " + "; ".join(failures[:5])
        # Verified: keep these single runs on the problem's own tests. They are the only
        # runtimes a problem without generators gets (the reward simulator may use them;
        # ranking and calibration use the repeated optimization-test runs only).
        for program in self.correct:
            for result in reports[program.name].tests:
                self.outcome.runtimes.append(
                    Runtime(
                        program.name,
                        result.name,
                        result.verdict,
                        result.cpu_s,
                        list(result.cpu_samples),
                        purpose="verify",
                    )
                )
        return None

    def _note_caught(self, reports: dict[str, ExecutionReport]) -> None:
        for program in self.wrong:
            if any(r.verdict != "OK" for r in reports[program.name].tests):
                self.wrong_caught.add(program.name)

    # -- stage 2 -------------------------------------------------------------------------
    def _generate(self, name: str, code: str, seed: int, size: int) -> Case | None:
        path = self.workdir / f"{name}-{seed}-{size}.in"
        cpu = self.config.generator_cpu_s
        limits = Limits(cpu_seconds=cpu, wall_seconds=2 * cpu + 5, memory_mb=2048, output_mb=256)
        generated = run_generator(code, seed, size, path, limits=limits, workdir=self.workdir)
        self.outcome.executions += 1
        if not generated.ok:
            self.failed_generators[name] = f"SIZE={size}: {generated.message}"
            return None
        return Case(f"{name}-{seed}-{size}", path, path)

    def _output_dir(self) -> Path:
        """A fresh folder per batch of outputs (a later batch must not overwrite them)."""
        return Path(tempfile.mkdtemp(prefix="outputs-", dir=self.workdir))

    def _agree(self, case: Case, outputs: dict, programs: list[Program]):
        return find_consensus(
            {p.name: outputs[p.name][case.name][1] for p in programs},
            self.problem.checker,
            min_agree=self.config.min_agree,
        )

    def _new_test(self, kind, name, generator, seed, size, case, consensus) -> NewTest:
        data = case.input_path.read_bytes()
        answer = self.workdir / f"{name.replace('/', '_')}.ans"
        answer.write_bytes(consensus.answer_path.read_bytes())
        self.test_paths[name] = (case.input_path, answer)
        return NewTest(
            name=name,
            kind=kind,
            generator=generator,
            seed=seed,
            size=size,
            input=data,
            answer=answer.read_bytes(),
            sha256=hashlib.sha256(data).hexdigest(),
            agreeing=consensus.agreeing,
        )

    def correctness_tests(self) -> str | None:
        """G generators x C candidates; a candidate becomes a test on consensus."""
        report = self.outcome.report["consensus"] = {"candidates": [], "generators": {}}
        if not self.problem.generators:
            report["note"] = "no input generators: the problem's own tests only"
            report["wrong_caught"] = sorted(self.wrong_caught)
            return None
        candidates = []  # (generator, seed, size, case)
        for generator, code in sorted(self.problem.generators.items()):
            for index in range(self.config.generator_candidates):
                size = self.config.correctness_sizes[index % len(self.config.correctness_sizes)]
                seed = derive_seed(self.problem.slug, generator, "correctness", index)
                case = self._generate(generator, code, seed, size)
                if case is None:
                    break  # a generator that fails once is not trusted again
                candidates.append((generator, seed, size, case))
        report["generators"] = dict(self.failed_generators)
        if not candidates:
            return "no generator produced an input: " + "; ".join(
                f"{g}: {why}" for g, why in self.failed_generators.items()
            )
        outputs = collect_outputs(
            self.correct,
            [c[3] for c in candidates],
            self._output_dir(),
            limits=self.verify_limits,
            workdir=self.workdir,
        )
        self.outcome.executions += len(self.correct) * len(candidates)
        disagreeing: set[str] = set()
        for index, (generator, seed, size, case) in enumerate(candidates):
            consensus = self._agree(case, outputs, self.correct)
            name = f"gen/{generator}/c{index}-s{size}"
            report["candidates"].append(
                {
                    "name": name,
                    "generator": generator,
                    "size": size,
                    "agreeing": len(consensus.agreeing),
                    "disagreeing": consensus.disagreeing,
                    "failed": consensus.failed,
                    "kept": consensus.answer_path is not None,
                    "reason": consensus.reason,
                }
            )
            if consensus.answer_path is not None:
                disagreeing |= set(consensus.disagreeing) | set(consensus.failed)
                self.outcome.new_tests.append(
                    self._new_test("correctness", name, generator, seed, size, case, consensus)
                )
        if not self.outcome.new_tests:
            return "no generated input reached consensus"
        self._catch_wrong_on_new_tests()
        report["wrong_caught"] = sorted(self.wrong_caught)
        report["references_out_of_consensus"] = sorted(disagreeing)
        self.correct = [p for p in self.correct if p.name not in disagreeing]
        if len(self.correct) < self.config.min_agree:
            return f"only {len(self.correct)} correct references agree with the consensus"
        return None

    def _catch_wrong_on_new_tests(self) -> None:
        if not self.wrong:
            return
        cases = [Case(t.name, *self.test_paths[t.name], t.kind) for t in self.outcome.new_tests]
        reports = measure(
            self.wrong,
            cases,
            limits=self.verify_limits,
            repeats=1,
            checker=self.problem.checker,
            workdir=self.workdir,
        )
        self.outcome.executions += _executions(reports)
        self._note_caught(reports)

    # -- stage 3 -------------------------------------------------------------------------
    def _probe(self, generator: str, code: str, size: int, index: int = 0):
        """Generate at `size` and run every correct reference once: (case, outputs, costs)."""
        seed = derive_seed(self.problem.slug, generator, "optimization", size, index)
        case = self._generate(generator, code, seed, size)
        if case is None:
            return None
        limits = _limits(1.5 * self.config.slow_target_s)
        outputs = collect_outputs(
            self.correct, [case], self._output_dir(), limits=limits, workdir=self.workdir
        )
        self.outcome.executions += len(self.correct)
        costs = {}
        for program in self.correct:
            result, path = outputs[program.name][case.name]
            costs[program.name] = result.cpu_s if path is not None else math.inf
        return seed, case, outputs, costs

    def _search_size(self, generator: str, code: str, probes: list[dict]):
        """The largest SIZE (bounded search) at which the slowest correct reference stays
        within T_slow: the largest size first, then bisection below it."""
        target = self.config.slow_target_s
        found = None

        def attempt(size: int) -> bool:
            nonlocal found
            probe = self._probe(generator, code, size)
            if probe is None:
                return False
            slowest, fastest = max(probe[3].values()), min(probe[3].values())
            probes.append(
                {
                    "size": size,
                    "slowest_s": slowest if math.isfinite(slowest) else None,  # None: timed out
                    "fastest_s": fastest if math.isfinite(fastest) else None,
                }
            )
            if slowest <= target:
                found = (size, probe)
                return True
            return False

        low, high = self.config.size_min, self.config.size_max
        if attempt(high):
            return found
        high -= 1
        while low <= high and len(probes) < self.config.max_probes:
            middle = (low + high) // 2
            if attempt(middle):
                low = middle + 1
            else:
                high = middle - 1
            if generator in self.failed_generators:
                break
        return found

    def optimization_tests(self) -> str | None:
        """Grow each generator's SIZE until the slowest correct reference needs about
        T_slow; keep the test when the fastest stays well under it."""
        report = self.outcome.report["optimization"] = {"generators": {}}
        if not self.problem.generators:
            return "no input generator: optimization tests cannot be grown"
        target, fast_limit = self.config.slow_target_s, self.config.fast_fraction
        for generator, code in sorted(self.problem.generators.items()):
            if generator in self.failed_generators:
                continue
            probes: list[dict] = []
            entry = report["generators"][generator] = {"probes": probes, "tests": []}
            found = self._search_size(generator, code, probes)
            if found is None:
                entry["note"] = self.failed_generators.get(
                    generator, f"the slowest reference needs over {target:g} s at every size"
                )
                continue
            size, first = found
            entry["size"] = size
            for index in range(self.config.optimization_tests_per_generator):
                probe = first if index == 0 else self._probe(generator, code, size, index)
                if probe is None:
                    break
                seed, case, outputs, costs = probe
                fastest = min(costs.values())
                name = f"opt/{generator}/s{size}-{index}"
                if fastest > fast_limit * target:
                    entry["tests"].append(
                        f"{name}: fastest needs {fastest:.3f} s, not under "
                        f"{fast_limit:g} x {target:g} s"
                    )
                    continue
                consensus = self._agree(case, outputs, self.correct)
                if consensus.answer_path is None:
                    entry["tests"].append(f"{name}: {consensus.reason}")
                    continue
                self.outcome.new_tests.append(
                    self._new_test("optimization", name, generator, seed, size, case, consensus)
                )
                entry["tests"].append(f"{name}: kept")
        if not any(t.kind == "optimization" for t in self.outcome.new_tests):
            return "no generator gave a discriminating optimization test"
        return None

    # -- stage 4 -------------------------------------------------------------------------
    def discrimination(self) -> str | None:
        """Measure every reference on the optimization tests, interleaved, `repeats` times;
        keep the problem when the correct ones differ well beyond the noise."""
        config = self.config
        tests = [t for t in self.outcome.new_tests if t.kind == "optimization"]
        cases = [Case(t.name, *self.test_paths[t.name], t.kind) for t in tests]
        reports = measure(
            self.correct + self.too_slow + self.wrong,
            cases,
            limits=_limits(config.runtime_cap_factor * config.slow_target_s),
            repeats=config.repeats,
            checker=self.problem.checker,
            workdir=self.workdir,
        )
        self.outcome.executions += _executions(reports)
        for name, report in reports.items():
            for result in report.tests:
                self.outcome.runtimes.append(
                    Runtime(
                        name,
                        result.name,
                        result.verdict,
                        result.cpu_s if result.verdict != "TIME_LIMIT" else None,
                        list(result.cpu_samples),
                    )
                )
        ratios, stabilities, noise = [], [], []
        language = config.ranking_language
        correct = {p.name for p in self.correct if not language or p.language == language}
        for case in cases:
            samples = {
                r.solution: r.samples
                for r in self.outcome.runtimes
                if r.test == case.name
                and r.solution in correct
                and r.verdict == "OK"
                and len(r.samples) >= config.repeats
            }
            if len(samples) < 2:
                continue
            medians = {name: statistics.median(s) for name, s in samples.items()}
            ratios.append(max(medians.values()) / max(min(medians.values()), MIN_COST_S))
            noise += [(max(s) - min(s)) / max(medians[n], MIN_COST_S) for n, s in samples.items()]
            order = [medians[name] for name in samples]
            for repeat in range(config.repeats):
                rho = spearmanr([s[repeat] for s in samples.values()], order).statistic
                stabilities.append(0.0 if math.isnan(rho) else float(rho))
        report = self.outcome.report["discrimination"] = {
            "language": language or "all",
            "references": sorted(correct),
            "ratios": ratios,
            "relative_noise": statistics.median(noise) if noise else None,
        }
        if not ratios:
            among = f"{language} " if language else ""
            return f"fewer than 2 correct {among}references finished the optimization tests"
        self.outcome.discrimination = statistics.median(ratios)
        self.outcome.rank_stability = statistics.fmean(stabilities)
        report.update(ratio=self.outcome.discrimination, rank_stability=self.outcome.rank_stability)
        if self.outcome.discrimination < config.min_ratio:
            return (
                f"slowest/fastest = {self.outcome.discrimination:.2f}, under {config.min_ratio:g}"
            )
        if self.outcome.rank_stability < config.min_rank_stability:
            return (
                f"rank stability {self.outcome.rank_stability:.2f} across repeats, "
                f"under {config.min_rank_stability:g}"
            )
        return None

    # -- stage 5 -------------------------------------------------------------------------
    def split(self) -> str | None:
        self.outcome.split = split_of(self.problem.slug, self.config)
        return None
