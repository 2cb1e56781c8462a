"""Validation of a proposed input generator in the sandbox, before the pipeline grows tests
from it (issue 19). Plain Python; the runs are the pipeline's own (problems/pipeline/runs.py:
the same generator runs, consensus and checks as stages 1-3).

The checks, in order; a generator is valid when every one passes:
1. runs: it prints an input for each seed at validation_size and at size_max, within
   generator_cpu_s (a crash, a loop or a fork bomb, stopped by the sandbox, fails here and
   ends the validation);
2. deterministic: the same SEED twice gives the same bytes, and the seeds do not all give
   one input (when they do, an inferred generator's narrow observed ranges widen first, and
   its checks run again: problems/generators/widen.py);
3. size cap: no input over max_input_bytes (its input at size_max is its largest);
4. consensus: on at least validation_min_inputs of its validation_seeds inputs at
   validation_size, every correct reference finishes with one answer (equal as the
   problem's checker compares); an input a reference crashes on or disagrees on is dropped,
   the reference is never blamed;
5. wrong references: the wrong references run on the kept inputs against their consensus
   answers; which ones the inputs catch is recorded (catching none is fine). An input that
   is one of the problem's own tests (the same tokens) must get that test's answer: a
   consensus that contradicts the problem's own tests rejects the generator;
6. grows with SIZE: at its reach (size_max, or past it where the statement states no
   bound: growth by measurement, problems/generators/growth.py; stage 3 reuses the probes)
   the slowest correct reference needs min_size_growth times its median time at
   validation_size and min_growth_s more (a pass is confirmed by the lowest of
   CONFIRM_RUNS more runs at the reach); a run stopped at the probe's cap counts as the
   cap and as grown enough (only its min_growth_s is checked). Run last, and only when
   every other check passed (it is the costly one). When it fails on an input that did
   grow, and growth could go no further, the generator is `untimeable`: no input it can
   make slows any reference, a property of the problem rather than of the generator.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

from execution.checker import check_output
from execution.engine import Case, Program
from problems.generators import Proposal
from problems.generators.growth import FAST_STOPS, Growth, grow
from problems.generators.widen import widened
from problems.pipeline.model import PipelineConfig, SourceProblem
from problems.pipeline.runs import Generated, ProblemRuns, derive_seed, probe_seed

CHECKS = ("runs", "deterministic", "size cap", "consensus", "wrong references", "grows with SIZE")
SAMPLE_INPUT_CHARS = 2000  # the sample input kept for the problem page
NOT_RUN = "not run: the generator is rejected already"
CONFIRM_RUNS = 2  # more runs at the reach before "grows with SIZE" passes on a finished run


@dataclass
class Check:
    name: str  # one of CHECKS
    passed: bool | None  # None: not run
    detail: str = ""  # what was measured, or why it failed
    data: dict = field(default_factory=dict)


@dataclass
class Report:
    """The validation of one proposal: plain data (`as_dict` is JSON)."""

    name: str
    source: str
    valid: bool
    reasons: list[str]  # "<check>: <detail>" of each failed check
    checks: list[Check]
    sample_input: str = ""  # its first input at validation_size, truncated
    executions: int = 0
    reach: int = 0  # the largest SIZE stage 3 searches (size_max, or past it when grown)
    limit: int = 0  # the largest SIZE stage 3 may grow to for the fastest reference's work
    untimeable: bool = False  # valid but for this: no input it makes slows any reference
    proposal: Proposal | None = None  # what was validated (widened, when it was): not in as_dict

    def as_dict(self) -> dict:
        data = asdict(dataclasses.replace(self, proposal=None))
        data.pop("proposal")
        return data


def validate(
    proposal: Proposal,
    problem: SourceProblem,
    config: PipelineConfig,
    workdir: Path,
    correct_refs: list[Program],
    wrong_refs: list[Program],
    *,
    runs: ProblemRuns | None = None,
) -> Report:
    """Validate `proposal` for `problem` against its verified references (stage 1's
    correct and wrong ones), running in `workdir`; `runs`: the build's (its generated
    inputs and probes are kept for stages 2-3)."""
    runs = runs or ProblemRuns(problem, config, workdir)
    before = runs.executions
    checks = {name: Check(name, None, NOT_RUN) for name in CHECKS}
    sample, validation = "", None
    if not proposal.code.strip():
        checks["runs"] = Check("runs", False, proposal.error or "the source gave no program")
    else:
        validation = _Validation(proposal, problem, config, runs, correct_refs, wrong_refs)
        sample = validation.run(checks)
        proposal = validation.proposal
    failed = [c for c in checks.values() if c.passed is False]
    return Report(
        name=proposal.name,
        source=proposal.source,
        valid=not failed and all(c.passed for c in checks.values()),
        reasons=[f"{c.name}: {c.detail}" for c in failed],
        checks=list(checks.values()),
        sample_input=sample,
        executions=runs.executions - before,
        reach=validation.reach if validation else 0,
        limit=validation.limit if validation else 0,
        untimeable=bool(validation and validation.untimeable and len(failed) == 1),
        proposal=proposal,
    )


def tokens_digest(data: bytes) -> str:
    """The input's tokens (split on the checker's six whitespace bytes), hashed: two inputs
    that differ only in spacing are the same test."""
    return hashlib.sha256(b" ".join(data.split())).hexdigest()


def _sample_text(path: Path) -> str:
    data = path.read_bytes()
    text = data[: SAMPLE_INPUT_CHARS * 4].decode(errors="replace")
    if len(text) <= SAMPLE_INPUT_CHARS:
        return text
    return text[:SAMPLE_INPUT_CHARS] + f"\n… (truncated: {len(data)} bytes in all)"


class _Validation:
    """The checks of one proposal (see the module's docstring), filling `checks`."""

    def __init__(self, proposal, problem, config, runs, correct, wrong):
        self.proposal = proposal
        self.name, self.code = proposal.name, proposal.code
        self.problem, self.config, self.runs = problem, config, runs
        self.correct, self.wrong = correct, wrong
        self.reach = self.limit = 0
        self.untimeable = False

    def run(self, checks: dict[str, Check]) -> str:
        """Fill `checks`; return the sample input ('' when the generator never printed).
        When every seed gave one input, an inferred generator's narrow ranges widen and its
        checks run once more (the validated proposal is then the widened one)."""
        sample = self._checks(checks)
        same = checks["deterministic"].data.get("distinct_inputs") == 1
        again = (
            widened(self.proposal)
            if same and checks["deterministic"].data.get("same_seed_same_bytes")
            else None
        )
        if again is None:
            return sample
        self.proposal, notes = again
        self.code = self.proposal.code
        first = checks["deterministic"].detail
        for name in CHECKS:
            checks[name] = Check(name, None, NOT_RUN)
        sample = self._checks(checks)
        check = checks["deterministic"]
        if check.passed is not None:
            check.detail += f" (after widening {', '.join(notes)}: at first {first})"
            check.data["widened"] = notes
        return sample

    def _checks(self, checks: dict[str, Check]) -> str:
        config = self.config
        seeds = [
            derive_seed(self.problem.slug, self.name, "validation", index)
            for index in range(config.validation_seeds)
        ]
        small = []
        for seed in seeds:
            made = self.runs.generate(self.name, self.code, seed, config.validation_size)
            if made.case is None:
                self._generation_failed(checks, made, seed, config.validation_size)
                return ""
            small.append((seed, made))
        again = self.runs.generate(
            self.name, self.code, seeds[0], config.validation_size, again=True
        )
        if again.case is None:
            self._generation_failed(checks, again, seeds[0], config.validation_size)
            return _sample_text(small[0][1].case.input_path)
        largest_seed = probe_seed(self.problem.slug, self.name, config.size_max)
        largest = self.runs.generate(self.name, self.code, largest_seed, config.size_max)
        if largest.case is None and not largest.over_cap:
            self._generation_failed(checks, largest, largest_seed, config.size_max)
            return _sample_text(small[0][1].case.input_path)
        sizes = f"inputs at SIZE {config.validation_size} and {config.size_max}"
        checks["runs"] = Check("runs", True, sizes)
        checks["deterministic"] = self._deterministic(small, again)
        checks["size cap"] = self._size_cap(largest)
        kept, small_costs = self._consensus(checks, small)
        checks["wrong references"] = self._wrong_references(kept)
        if all(c.passed for c in checks.values() if c.name != "grows with SIZE"):
            small_bytes = statistics.median(made.size_bytes for _, made in small)
            checks["grows with SIZE"] = self._growth(small_costs, small_bytes, largest)
        return _sample_text(small[0][1].case.input_path)

    def _generation_failed(self, checks, made: Generated, seed: int, size: int) -> None:
        if made.over_cap:
            checks["runs"] = Check("runs", True, f"an input at SIZE {size}")
            checks["size cap"] = Check("size cap", False, f"SIZE {size}: {made.message}")
        else:
            checks["runs"] = Check("runs", False, f"SIZE {size}, seed {seed}: {made.message}")

    def _deterministic(self, small: list[tuple[int, Generated]], again: Generated) -> Check:
        first = small[0][1]
        distinct = len({made.sha256 for _, made in small})
        data = {"same_seed_same_bytes": again.sha256 == first.sha256, "distinct_inputs": distinct}
        if again.sha256 != first.sha256:
            detail = f"seed {small[0][0]} gave different bytes on a second run"
            return Check("deterministic", False, detail, data)
        if distinct < 2:
            detail = f"all {len(small)} seeds gave the same input (the seed is ignored)"
            return Check("deterministic", False, detail, data)
        detail = f"the same bytes again; {distinct} different inputs from {len(small)} seeds"
        return Check("deterministic", True, detail, data)

    def _size_cap(self, largest: Generated) -> Check:
        cap, size = self.config.max_input_bytes, self.config.size_max
        data = {"bytes": largest.size_bytes, "size": size, "cap_bytes": cap}
        if largest.over_cap:
            return Check("size cap", False, f"SIZE {size}: {largest.message}", data)
        return Check("size cap", True, f"{largest.size_bytes} bytes at SIZE {size}", data)

    def _consensus(self, checks, small):
        """Every correct reference on every input; an input is kept on their unanimous
        answer. Returns ([(case, consensus)] kept, {reference: [CPU s on kept inputs]})."""
        cases = [made.case for _, made in small]
        outputs = self.runs.outputs(self.correct, cases)
        everyone = len(self.correct)
        kept, inputs, costs = [], [], {p.name: [] for p in self.correct}
        for (seed, made), case in zip(small, cases, strict=True):
            consensus = self.runs.agree(case, outputs, self.correct, min_agree=everyone)
            verdicts = {p.name: outputs[p.name][case.name][0].verdict for p in self.correct}
            entry = {
                "seed": seed,
                "bytes": made.size_bytes,
                "kept": consensus.answer_path is not None and not consensus.disagreeing,
                "failed": {name: verdicts[name] for name in consensus.failed},
                "disagreeing": consensus.disagreeing,
            }
            inputs.append(entry)
            if entry["kept"]:
                kept.append((case, consensus))
                for program in self.correct:
                    costs[program.name].append(outputs[program.name][case.name][0].cpu_s)
        dropped = [_why_dropped(e) for e in inputs if not e["kept"]]
        detail = (
            f"{len(kept)} of {len(inputs)} inputs at SIZE {self.config.validation_size} get one "
            f"answer from all {everyone} correct references"
        )
        if dropped:
            detail += "; dropped: " + "; ".join(dropped)
        passed = len(kept) >= self.config.validation_min_inputs
        if not passed:
            detail += f" (at least {self.config.validation_min_inputs} needed)"
        checks["consensus"] = Check("consensus", passed, detail, {"inputs": inputs})
        return kept, costs

    def _wrong_references(self, kept) -> Check:
        if not kept:
            return Check("wrong references", None, "no input kept")
        cases = [
            Case(f"validation/{case.name}", case.input_path, consensus.answer_path)
            for case, consensus in kept
        ]
        caught = self.runs.caught(self.wrong, cases)
        data = {
            "caught": sorted(caught),
            "not_caught": sorted(p.name for p in self.wrong if p.name not in caught),
            "contradicted": self._contradicted(kept),
        }
        detail = f"{len(caught)} of {len(self.wrong)} wrong references caught"
        if data["contradicted"]:
            detail = "the consensus contradicts the problem's own test(s) " + ", ".join(
                data["contradicted"]
            )
            return Check("wrong references", False, detail, data)
        return Check("wrong references", True, detail, data)

    def _contradicted(self, kept) -> list[str]:
        """The problem's own tests whose input a kept input repeats and whose answer its
        consensus is not (as the problem's checker compares)."""
        own = {tokens_digest(t.input_path.read_bytes()): t for t in self.problem.tests}
        contradicted = []
        for case, consensus in kept:
            test = own.get(tokens_digest(case.input_path.read_bytes()))
            if test is None:
                continue
            verdict = check_output(
                test.answer_path.read_bytes(),
                consensus.answer_path.read_bytes(),
                self.problem.checker,
            )
            if not verdict.ok:
                contradicted.append(test.name)
        return contradicted

    def _growth(
        self, small_costs: dict[str, list[float]], small_bytes: float, largest: Generated
    ) -> Check:
        config = self.config
        probe = self.runs.probe(self.name, self.code, self.correct, config.size_max)
        if probe is None:
            return Check("grows with SIZE", False, f"SIZE {config.size_max}: no input")
        growth = grow(self.runs, self.proposal, self.code, self.correct, probe, largest.size_bytes)
        self.reach, self.limit = growth.reach, growth.limit
        if growth.reach != config.size_max:
            probe = self.runs.probe(self.name, self.code, self.correct, growth.reach)
        reach_bytes = next(p["bytes"] for p in growth.curve if p["size"] == growth.reach)
        check = self._grew(probe, small_costs, growth)
        start = {
            "size": config.validation_size,
            "bytes": small_bytes,
            "costs": {n: statistics.median(c) if c else None for n, c in small_costs.items()},
            "verdicts": {},
            "purpose": "validation",
        }
        check.data.update(
            curve=[start, *growth.curve],
            growth={"stop": growth.stop, "why": growth.why, "probes": growth.probes},
            target_s=growth.target_s,
        )
        grew = reach_bytes >= 2 * small_bytes
        if growth.probes or growth.stop == "flat" or (not check.passed and grew):
            check.detail += f"; growth: {growth.why}"
        if not check.passed and growth.stop in FAST_STOPS and grew:
            self.untimeable = True
            check.detail += (
                "; not time-discriminative: no input slows any reference (its input grew "
                f"from {small_bytes:,.0f} to {reach_bytes:,} bytes)"
            )
        elif not check.passed and not grew:
            check.detail += (
                f"; its input does not grow either ({small_bytes:,.0f} bytes at SIZE "
                f"{config.validation_size}, {reach_bytes:,} at SIZE {growth.reach})"
            )
        return check

    def _grew(self, probe, small_costs: dict[str, list[float]], growth: Growth) -> Check:
        """Whether the slowest correct reference's time at the reach grew enough."""
        config = self.config
        size = growth.reach
        large: dict[str, tuple[float, bool]] = {}  # reference -> (CPU s, stopped at the cap)
        for program in self.correct:
            result, _ = probe.outputs[program.name][probe.case.name]
            if result.verdict == "OK" and result.cpu_s is not None:
                large[program.name] = (result.cpu_s, False)
            elif result.verdict == "TIME_LIMIT":
                large[program.name] = (probe.cap_s, True)
        measured = {n: statistics.median(c) for n, c in small_costs.items() if c and n in large}
        if not measured:
            detail = f"no correct reference finished or timed out at SIZE {size}"
            return Check("grows with SIZE", False, detail)
        slowest = max(measured, key=lambda n: (large[n][0], measured[n]))
        small_s, (large_s, stopped) = measured[slowest], large[slowest]
        runs = 1
        if not stopped and self._grows(small_s, large_s):
            # a pass on one run is confirmed by the lowest of more: one run on a loaded host
            # can be slower by chance and accept a generator whose time does not grow
            program = next(p for p in self.correct if p.name == slowest)
            again = self.runs.lowest_cpu_s(program, probe, CONFIRM_RUNS)
            large_s, runs = min(large_s, again if again is not None else large_s), 1 + CONFIRM_RUNS
        ratio = large_s / small_s if small_s > 0 else math.inf
        data = {
            "reference": slowest,
            "small_size": config.validation_size,
            "large_size": size,
            "small_s": small_s,
            "large_s": large_s,
            "stopped_at_cap": stopped,
            "large_runs": runs,  # large_s is the lowest of these many runs
            "ratio": ratio,
        }
        at_least = "at least " if stopped else ""
        detail = (
            f"{slowest}: {small_s:.3f} s at SIZE {config.validation_size}, {at_least}"
            f"{large_s:.3f} s at SIZE {size} ({at_least}{ratio:.1f}x)"
        )
        # stopped at the probe's cap: its time is only bounded below, so the ratio cannot be
        # told; being stopped at SIZE max where it finished at validation_size shows growth
        # (a loaded host's slower start-up otherwise rejected a linear generator, 1.7x)
        if stopped:
            grows = large_s - small_s >= config.min_growth_s
        else:
            grows = self._grows(small_s, large_s)
        if not grows:
            detail += (
                f"; needs {config.min_size_growth:g}x and {config.min_growth_s:g} s more: "
                "its time does not grow with SIZE"
            )
        return Check("grows with SIZE", grows, detail, data)

    def _grows(self, small_s: float, large_s: float) -> bool:
        config = self.config
        ratio = large_s / small_s if small_s > 0 else math.inf
        return ratio >= config.min_size_growth and large_s - small_s >= config.min_growth_s


def _why_dropped(entry: dict) -> str:
    why = [f"{name} {verdict}" for name, verdict in entry["failed"].items()]
    if entry["disagreeing"]:
        why.append("disagree: " + ", ".join(entry["disagreeing"]))
    return f"seed {entry['seed']}: " + (", ".join(why) or "no consensus")
