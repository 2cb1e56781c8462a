"""The five stages of the construction pipeline, for one problem. Plain Python.

Each stage returns None when the problem passes it, or the reason it stops there; what it
learnt goes into `outcome.report[<stage>]` (shown on the problem page).
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Callable
from pathlib import Path

from execution.engine import LANGUAGES, Case, Program, ValidatorError
from problems.generators.sources import Proposer, default_proposers, proposals_for
from problems.pipeline.model import (
    NewTest,
    PipelineConfig,
    ProblemOutcome,
    Runtime,
    SourceProblem,
    ValidatedGenerator,
)
from problems.pipeline.runs import ProblemRuns, derive_seed, failing, limits_for, probe_seed

__all__ = ["ProblemBuilder", "derive_seed", "split_of"]
MIN_COST_S = 1e-3  # a ratio's denominator floor: CPU time below a millisecond is start-up noise


def split_of(slug: str, config: PipelineConfig) -> str:
    """Deterministic train/test split: a hash of the seed and the slug against the fraction."""
    digest = hashlib.sha256(f"{config.split_seed}:{slug}".encode()).digest()
    return "test" if int.from_bytes(digest[:8], "big") / 2**64 < config.test_fraction else "train"


class ProblemBuilder:
    """Runs the stages for one problem, in `workdir` (which the caller removes).

    `proposers`: the generator sources besides the hand-written generators (None: those
    the config asks for, problems.generators.sources.default_proposers)."""

    def __init__(
        self,
        problem: SourceProblem,
        config: PipelineConfig,
        workdir: Path,
        on_stage: Callable[[int, str], None] | None = None,
        proposers: list[Proposer] | None = None,
    ):
        self.problem = problem
        self.config = config
        self.workdir = workdir
        self.on_stage = on_stage
        self.proposers = default_proposers(config) if proposers is None else proposers
        self.outcome = ProblemOutcome(problem.slug)
        self.runs = ProblemRuns(problem, config, workdir)
        self.verify_limits = self.runs.verify_limits
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
        self.generators: dict[str, str] = {}  # the valid ones: name -> code (stages 2-3)
        self.reach: dict[str, int] = {}  # the valid ones: name -> largest SIZE searched
        self.limit: dict[str, int] = {}  # ... and the largest grown to for the fastest's work
        self.failed_generators: dict[str, str] = {}
        self.test_paths: dict[str, tuple[Path, Path]] = {}  # new test -> (input, answer)

    def run(self) -> ProblemOutcome:
        try:
            return self._run_stages()
        finally:
            self.outcome.executions = self.runs.executions

    def _run_stages(self) -> ProblemOutcome:
        stages = (
            ("verifying references", self.verify_references),
            ("validating generators", self.correctness_tests),
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
            reports = self.runs.measure(
                self.correct + self.wrong,
                tests,
                limits=self.verify_limits,
                repeats=1,
                checker=self.problem.checker,
                stop_at_failure=True,  # a reference that failed is out: its first failure says so
                validator_sources=self.problem.validator_sources or None,
                validator_flags=self.problem.validator_flags,
            )
        except ValidatorError as exc:
            return f"the problem's output validator fails: {exc}"
        failures = []
        for program in self.correct:
            failed = next((r for r in reports[program.name].tests if r.verdict != "OK"), None)
            if failed is not None:
                failures.append(f"{program.name}: {failed.verdict} on {failed.name}")
        self.wrong_caught |= failing(reports, self.wrong)
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

    # -- before stage 2: the generators -----------------------------------------------------
    def choose_generators(self) -> None:
        """Every proposal (the hand-written generators, then each proposer's) validated
        against the verified references (problems/generators/validate.py); the valid ones
        feed stages 2-3, every one is kept in the outcome with its report."""
        # validate imports this package's modules: imported on use (no import-time circle)
        from problems.generators.validate import validate

        proposals = proposals_for(self.problem, self.proposers)
        self.outcome.generator_sources = ["hand", *(p.source for p in self.proposers)]
        for proposal in proposals:
            validated = validate(
                proposal,
                self.problem,
                self.config,
                self.workdir,
                self.correct,
                self.wrong,
                runs=self.runs,
            )
            proposal, report = validated.proposal or proposal, validated.as_dict()
            self.outcome.generators.append(ValidatedGenerator(proposal, report))
            if report["valid"]:
                self.generators[proposal.name] = proposal.code
                self.reach[proposal.name] = max(report["reach"], self.config.size_max)
                self.limit[proposal.name] = max(report["limit"], self.reach[proposal.name])
        self.outcome.report["generators"] = {
            g.proposal.name: {
                "source": g.proposal.source,
                "valid": g.valid,
                "reasons": g.report["reasons"],
            }
            for g in self.outcome.generators
        }

    def _no_generator(self) -> str:
        """Why there is no generator to grow tests from ('' when there is one)."""
        if self.generators:
            return ""
        untimeable = [g for g in self.outcome.generators if g.report.get("untimeable")]
        if untimeable:
            check = next(c for c in untimeable[0].report["checks"] if c["passed"] is False)
            measured = check["detail"].split("; not time-discriminative")[0]
            return (
                "not time-discriminative: no input slows any reference "
                f"({untimeable[0].proposal.name}: {measured})"
            )
        if self.outcome.generators:
            return f"no valid input generator ({len(self.outcome.generators)} proposed)"
        return "no input generator"

    # -- stage 2 -------------------------------------------------------------------------
    def _generate(self, name: str, code: str, seed: int, size: int) -> Case | None:
        generated = self.runs.generate(name, code, seed, size)
        if generated.case is None:
            self.failed_generators[name] = f"SIZE={size}: {generated.message}"
        return generated.case

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
        self.choose_generators()
        if self.on_stage is not None:
            self.on_stage(1, "correctness tests")
        report = self.outcome.report["consensus"] = {"candidates": [], "generators": {}}
        if self._no_generator():
            report["note"] = f"{self._no_generator()}: the problem's own tests only"
            report["wrong_caught"] = sorted(self.wrong_caught)
            return None
        candidates = []  # (generator, seed, size, case)
        for generator, code in sorted(self.generators.items()):
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
        outputs = self.runs.outputs(self.correct, [c[3] for c in candidates])
        disagreeing: set[str] = set()
        for index, (generator, seed, size, case) in enumerate(candidates):
            consensus = self.runs.agree(case, outputs, self.correct)
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
        cases = [Case(t.name, *self.test_paths[t.name], t.kind) for t in self.outcome.new_tests]
        self.wrong_caught |= self.runs.caught(self.wrong, cases)

    # -- stage 3 -------------------------------------------------------------------------
    def _probe(
        self, generator: str, code: str, size: int, index: int = 0, cap_s: float | None = None
    ):
        """Generate at `size` and run every correct reference once (runs.Probe; None when
        the generator failed). Runs are stopped at 1.5 x T_slow, or `cap_s`."""
        seed = probe_seed(self.problem.slug, generator, size, index)
        if self._generate(generator, code, seed, size) is None:  # (the probe reuses the input)
            return None
        return self.runs.probe(generator, code, self.correct, size, index, cap_s)

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
            slowest, fastest = max(probe.costs.values()), min(probe.costs.values())
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

        low, high = self.config.size_min, self.reach.get(generator, self.config.size_max)
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

    def _ranked_fastest(self, costs: dict[str, float]) -> float:
        """The fastest cost among the references a program is ranked with (its language's:
        a C++ reference is faster than Python's start-up)."""
        language = self.config.ranking_language
        ranked = [
            costs[p.name]
            for p in self.correct
            if p.name in costs and (not language or p.language == language)
        ]
        return min(ranked or costs.values())

    def _grow_for_fast_work(self, generator: str, code: str, size: int, probe, probes):
        """(size, probe, note): SIZE doubled (to size_max) while the fastest correct reference
        does under min_fast_work_s beyond start-up, as long as a strict majority of them
        still finish within the stage 4 cap (consensus needs them); `note` says why the work
        stays short, or is empty."""
        config = self.config
        startup = self.runs.startup_s()
        cap = config.runtime_cap_factor * config.slow_target_s
        largest = self.limit.get(generator, config.size_max)
        while True:
            work = self._ranked_fastest(probe.costs) - startup
            if work >= config.min_fast_work_s:
                return size, probe, ""
            short = (
                f"the fastest reference does {work:.3f} s of work beyond {startup:.3f} s of "
                f"start-up at SIZE {size}"
            )
            if size >= largest:
                return size, probe, f"{short}, the generator's largest"
            bigger = min(largest, size * 2)
            grown = self._probe(generator, code, bigger, cap_s=cap)
            if grown is None:
                return size, probe, f"{short}; SIZE {bigger} failed to generate"
            costs = grown.costs
            finished = [c for c in costs.values() if math.isfinite(c)]
            probes.append(
                {
                    "size": bigger,
                    "slowest_s": max(costs.values()) if len(finished) == len(costs) else None,
                    "fastest_s": min(finished) if finished else None,
                    "purpose": "fastest reference's work",
                }
            )
            if 2 * len(finished) <= len(costs):
                return (
                    size,
                    probe,
                    (
                        f"{short}; at SIZE {bigger} only {len(finished)} of {len(costs)} "
                        f"references finish within the {cap:g} s cap"
                    ),
                )
            size, probe = bigger, grown

    def optimization_tests(self) -> str | None:
        """Grow each generator's SIZE until the slowest correct reference needs about
        T_slow; keep the test when the fastest stays well under it."""
        report = self.outcome.report["optimization"] = {"generators": {}}
        if self._no_generator():
            self.outcome.untimeable = self._no_generator().startswith("not time-discriminative")
            if self.outcome.untimeable:
                return self._no_generator()
            return f"{self._no_generator()}: optimization tests cannot be grown"
        target, fast_limit = self.config.slow_target_s, self.config.fast_fraction
        for generator, code in sorted(self.generators.items()):
            if generator in self.failed_generators:
                continue
            probes: list[dict] = []
            entry = report["generators"][generator] = {"probes": probes, "tests": []}
            if self.reach.get(generator, self.config.size_max) > self.config.size_max:
                entry["reach"] = self.reach[generator]
            found = self._search_size(generator, code, probes)
            if found is None:
                entry["note"] = self.failed_generators.get(
                    generator, f"the slowest reference needs over {target:g} s at every size"
                )
                continue
            size, first, note = self._grow_for_fast_work(generator, code, *found, probes)
            entry["size"] = size
            entry["startup_s"] = self.runs.startup_s()
            if note:
                entry["fast_work_note"] = note
            chosen = [
                (size, index, None if index else first)
                for index in range(self.config.optimization_tests_per_generator)
            ]
            if size != found[0] and any(math.isinf(c) for c in first.costs.values()):
                # grown for the fastest's work, a correct reference stops at the cap there:
                # the test at T_slow's SIZE is kept too, where every one finishes and the
                # gap is measured, not bounded
                chosen.append((found[0], 0, found[1]))
                entry["also_at_target_size"] = found[0]
            for size, index, probe in chosen:
                probe = probe or self._probe(generator, code, size, index)
                if probe is None:
                    break
                seed, case, outputs, costs = probe.seed, probe.case, probe.outputs, probe.costs
                fastest = min(costs.values())
                name = f"opt/{generator}/s{size}-{index}"
                if fastest > fast_limit * target:
                    entry["tests"].append(
                        f"{name}: fastest needs {fastest:.3f} s, not under "
                        f"{fast_limit:g} x {target:g} s"
                    )
                    continue
                consensus = self.runs.agree(case, outputs, self.correct)
                if consensus.answer_path is None:
                    entry["tests"].append(f"{name}: {consensus.reason}")
                    continue
                self.outcome.new_tests.append(
                    self._new_test("optimization", name, generator, seed, size, case, consensus)
                )
                ranked = self._ranked_fastest(costs)
                share = self.runs.startup_s() / ranked if ranked > 0 else 0.0
                entry["tests"].append(
                    f"{name}: kept (fastest {ranked:.3f} s, {share:.0%} of it start-up)"
                )
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
        reports = self.runs.measure(
            self.correct + self.too_slow + self.wrong,
            cases,
            limits=limits_for(config.runtime_cap_factor * config.slow_target_s),
            repeats=config.repeats,
            checker=self.problem.checker,
        )
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
        cap = config.runtime_cap_factor * config.slow_target_s
        capped: set[str] = set()
        for case in cases:
            samples, stopped = {}, set()
            for r in self.outcome.runtimes:
                if r.test != case.name or r.solution not in correct:
                    continue
                if r.verdict == "OK" and len(r.samples) >= config.repeats:
                    samples[r.solution] = r.samples
                elif r.verdict == "TIME_LIMIT":
                    # stopped at the cap: its cost is at least the cap (a lower bound)
                    samples[r.solution] = [cap] * config.repeats
                    stopped.add(r.solution)
            if len(samples) < 2 or len(samples) == len(stopped):
                continue
            capped |= stopped
            medians = {name: statistics.median(s) for name, s in samples.items()}
            ratios.append(max(medians.values()) / max(min(medians.values()), MIN_COST_S))
            noise += [
                (max(s) - min(s)) / max(medians[n], MIN_COST_S)
                for n, s in samples.items()
                if n not in stopped
            ]
            stabilities += order_kept(samples, config.repeats, config.rank_tie_band)
        report = self.outcome.report["discrimination"] = {
            "language": language or "all",
            "references": sorted(correct),
            "ratios": ratios,
            "relative_noise": statistics.median(noise) if noise else None,
            "stopped_at_cap": sorted(capped),
        }
        if capped:
            report["note"] = (
                f"{', '.join(sorted(capped))} stopped at the {cap:g} s cap on some test: "
                "counted at the cap, so the ratio is a lower bound"
            )
        if not ratios:
            among = f"{language} " if language else ""
            return f"fewer than 2 correct {among}references finished the optimization tests"
        self.outcome.discrimination = statistics.median(ratios)
        self.outcome.rank_stability = statistics.fmean(stabilities) if stabilities else None
        report.update(ratio=self.outcome.discrimination, rank_stability=self.outcome.rank_stability)
        if self.outcome.discrimination < config.min_ratio:
            return (
                f"slowest/fastest = {self.outcome.discrimination:.2f}, under {config.min_ratio:g}"
            )
        if self.outcome.rank_stability is None:
            return (
                f"no two references apart by more than the {config.rank_tie_band:g} tie band "
                "on any optimization test: nothing to rank"
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


def order_kept(samples: dict[str, list[float]], repeats: int, tie_band: float) -> list[float]:
    """Per repeat, the share of the pairs of references whose medians lie more than tie_band
    apart (a share of the smaller) that this repeat orders as their medians do. A pair inside
    the band is a tie (foundation.ranking.Ties, the same rule ranking uses): its order is
    noise, and a flip there says nothing about the ranking. No repeat when no pair is apart."""
    medians = {name: statistics.median(s) for name, s in samples.items()}
    names = sorted(samples, key=medians.__getitem__)
    apart = [
        (fast, slow)
        for i, fast in enumerate(names)
        for slow in names[i + 1 :]
        if medians[slow] > medians[fast] * (1 + tie_band)
    ]
    if not apart:
        return []
    return [
        sum(samples[fast][r] < samples[slow][r] for fast, slow in apart) / len(apart)
        for r in range(repeats)
    ]
