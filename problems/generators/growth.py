"""Growth by measurement (issue 33): how far past SIZE_MAX a generator's inputs must grow
before the slowest correct reference needs the build's T_slow. Plain Python; the runs are
the build's (problems/pipeline/runs.py), so stage 3 reuses every probe.

A statement that states no bound gives an inferred generator nothing to reach at SIZE_MAX:
its counts stop at UNSTATED_GROWTH x the largest a test holds (tests of n <= 7 give 70),
where an O(n^2) reference and an O(n) one both take the interpreter's start-up. Such a
generator says so (`grows_past_size_max` in its provenance: the fields with no stated bound,
problems/generators/infer.py; the LLM writer's prompt asks the same of its programs), and
SIZE then climbs by `growth_factor` from SIZE_MAX, every correct reference run once at each
SIZE, until one of:

- reached: the slowest correct reference needs `slow_target_s` (or is stopped at the
  probe's cap), within the problem's time limit x `verify_time_factor` when that is lower;
- cap: the input passes `max_input_bytes`, the problem's size cap;
- flat: the input stops growing (every growing field at its `grow_cap`);
- memory: a correct reference runs out of the problem's memory limit;
- failed: a correct reference crashes, or the generator fails, or the references disagree
  (the input is then not one the problem allows);
- probes: `growth_probes` SIZEs tried.

Growth does not start (`fixed`) for a generator that may not grow, or (`off`) when the
build's growth_probes is 0.

`reach` is the largest SIZE whose input every correct reference handled (the SIZE of the
last probe kept); `limit`, how far stage 3 may still grow the input so that the fastest
reference does measurable work (its own rule, PipelineConfig.min_fast_work_s): as far as
growth could have gone when it stopped on reaching T_slow, else `reach`. An inferred
generator says at which SIZE every growing field is at its cap (`grows_until`): no probe
goes past it. A stated bound never grows: the inferrer gives no `grow_cap` to a field the
statement bounds, and a hand-written generator (written to its statement) is not grown.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from execution.engine import Program
from problems.generators import Proposal
from problems.pipeline.model import PipelineConfig, SourceProblem
from problems.pipeline.runs import Probe, ProblemRuns, probe_seed

MIN_INPUT_GROWTH = 1.1
"""A generator that does not say where its growth ends: an input less than this much larger
than the last has stopped growing."""
STOPS = ("reached", "fixed", "off", "cap", "flat", "memory", "failed", "probes")
FAST_STOPS = ("fixed", "cap", "flat", "probes")
"""Growth ends for one of these while every reference stays fast: the problem offers no
slower input (within its bounds, its size cap, the generator's reach)."""


@dataclass
class Growth:
    reach: int  # the largest SIZE the generator is used at (size_max when it did not grow)
    stop: str  # one of STOPS
    why: str  # the stop in words, with its SIZE and figures
    target_s: float  # the slowest reference's CPU seconds growth aimed at
    curve: list[dict] = field(default_factory=list)
    """One point per SIZE measured: size, bytes, costs {reference: CPU s, None when it did
    not finish}, verdicts {reference: verdict} of the runs that failed, purpose."""
    probes: int = 0  # SIZEs past size_max tried
    limit: int = 0  # the largest SIZE stage 3 may grow to (see the module docstring)

    def __post_init__(self):
        self.limit = self.limit or self.reach

    def as_dict(self) -> dict:
        return asdict(self)


def growable(proposal: Proposal) -> str:
    """Why `proposal` may not grow past SIZE_MAX ('' when it may)."""
    if proposal.source == "hand":
        return "a hand-written generator reaches its statement's limits at the largest SIZE"
    if not proposal.provenance.get("grows_past_size_max"):
        if proposal.source == "inferred":
            return "the statement bounds every count and value"
        return "the generator does not say that it grows past the largest SIZE"
    return ""


def target_s(problem: SourceProblem, config: PipelineConfig) -> float:
    """T_slow, or the problem's time limit x verify_time_factor when that is lower."""
    return min(config.slow_target_s, problem.time_limit_s * config.verify_time_factor)


def curve_point(probe: Probe, size: int, size_bytes: int, purpose: str) -> dict:
    costs, verdicts = {}, {}
    for name, runs in probe.outputs.items():
        result, path = runs[probe.case.name]
        costs[name] = result.cpu_s if path is not None and result.cpu_s is not None else None
        if result.verdict != "OK":
            verdicts[name] = result.verdict
    return {
        "size": size,
        "bytes": size_bytes,
        "costs": costs,
        "verdicts": verdicts,
        "purpose": purpose,
    }


def slowest(probe: Probe) -> tuple[str, float]:
    """The slowest reference on `probe` and its CPU seconds (inf: stopped at the cap)."""
    name = max(probe.costs, key=lambda n: probe.costs[n])
    return name, probe.costs[name]


def grow(
    runs: ProblemRuns,
    proposal: Proposal,
    code: str,
    correct: list[Program],
    largest: Probe,
    largest_bytes: int,
) -> Growth:
    """Grow `code` (the program of `proposal`, maybe widened) past config.size_max from its
    probe there (`largest`, an input of `largest_bytes`), as the module docstring says."""
    config, problem = runs.config, runs.problem
    target = target_s(problem, config)
    limit_note = (
        f" (the time limit x {config.verify_time_factor:g}, under T_slow)"
        if target < config.slow_target_s
        else ""
    )
    reach = config.size_max
    curve = [curve_point(largest, reach, largest_bytes, "largest SIZE")]
    name, cost = slowest(largest)
    if cost >= target:
        why = _reached(name, cost, reach, target, limit_note)
        return Growth(reach, "reached", why, target, curve)
    why_not = growable(proposal)
    if why_not:
        why = f"not grown past SIZE {reach}: {why_not}"
        return Growth(reach, "fixed", why, target, curve)
    if config.growth_probes == 0:
        why = f"not grown past SIZE {reach}: growth is off (growth_probes = 0)"
        return Growth(reach, "off", why, target, curve)
    previous_bytes, stop, why = largest_bytes, "probes", ""
    probes = 0
    until = proposal.provenance.get("grows_until")
    furthest = int(config.size_max * config.growth_factor**config.growth_probes)
    for _ in range(config.growth_probes):
        size = max(reach + 1, int(reach * config.growth_factor))
        if until is not None and reach >= until:
            stop = "flat"
            why = f"SIZE {reach}: every growing count and value is at its cap"
            break
        probes += 1
        probe = runs.probe(proposal.name, code, correct, size)
        seed = probe_seed(problem.slug, proposal.name, size)
        made = runs.generate(proposal.name, code, seed, size)
        if probe is None:
            if made.over_cap:
                stop = "cap"
                why = (
                    f"SIZE {size}: its input ({made.size_bytes:,} bytes) passes the "
                    f"{config.max_input_bytes:,}-byte cap"
                )
            else:
                stop, why = "failed", f"SIZE {size}: the generator failed: {made.message}"
            break
        point = curve_point(probe, size, made.size_bytes, "growth")
        curve.append(point)
        if until is None and made.size_bytes < previous_bytes * MIN_INPUT_GROWTH:
            stop = "flat"
            why = (
                f"SIZE {size}: its input stopped growing ({made.size_bytes:,} bytes, "
                f"{previous_bytes:,} at SIZE {reach}): every growing count is at its cap"
            )
            break
        failure = _failure(point, problem)
        if failure:
            stop, why = failure[0], f"SIZE {size}: {failure[1]}"
            break
        consensus = runs.agree(probe.case, probe.outputs, correct)
        if consensus.disagreeing:
            stop = "failed"
            why = (
                f"SIZE {size}: the correct references disagree "
                f"({', '.join(consensus.disagreeing)}): not an input the problem allows"
            )
            break
        reach, previous_bytes = size, made.size_bytes
        name, cost = slowest(probe)
        if cost >= target:
            stop, why = "reached", _reached(name, cost, reach, target, limit_note)
            break
    else:
        name, cost = slowest(runs.probe(proposal.name, code, correct, reach))
        why = (
            f"{probes} growth probe(s) used; at SIZE {reach} the slowest reference, {name}, "
            f"needs {cost:.3f} s of {target:g} s"
        )
    if stop != "reached" and why:
        why += f"; kept at SIZE {reach}"
    limit = max(reach, furthest if until is None else min(furthest, until))
    return Growth(reach, stop, why, target, curve, probes, limit if stop == "reached" else reach)


def _reached(name: str, cost: float, size: int, target: float, limit_note: str) -> str:
    spent = "is stopped at the cap" if math.isinf(cost) else f"needs {cost:.3f} s"
    return f"SIZE {size}: the slowest reference, {name}, {spent} (target {target:g} s{limit_note})"


def _failure(point: dict, problem: SourceProblem) -> tuple[str, str] | None:
    """(stop, words) when a correct reference failed other than by running past the cap."""
    failed = {n: v for n, v in point["verdicts"].items() if v != "TIME_LIMIT"}
    if not failed:
        return None
    name, verdict = sorted(failed.items())[0]
    if verdict == "MEMORY_LIMIT":
        return "memory", f"{name} runs out of the {problem.memory_mb} MB memory limit"
    return "failed", f"{name} fails ({verdict})"
