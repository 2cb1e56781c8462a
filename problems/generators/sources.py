"""Where a problem's proposed generators come from, for the pipeline (plain Python): its
hand-written generators, then one `Proposer` per other source (problems/generators/
__init__.py): `inferred` (infer.py) and `llm` (llm.py).

Each source is asked for by PipelineConfig (`infer_generators`, `llm_generators`); its module
is imported when a build asks for it (the LLM one loads the `openai` client).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from problems.generators import Proposal, Refusal

if TYPE_CHECKING:  # (the pipeline's package imports this module: no import at run time)
    from problems.pipeline.model import PipelineConfig, SourceProblem

LLM_ENDPOINT_VARIABLES = ("GENERATOR_LLM_BASE_URL", "JUDGE_LLM_BASE_URL")
"""A model is asked for generators only when one of these names an endpoint (llm.py reads
the rest of its GENERATOR_LLM_* / JUDGE_LLM_* settings)."""
LLM_SAMPLE_INPUTS = 3  # sample inputs shown to the model (the smallest correctness ones
# when the problem has no sample)


@dataclass(frozen=True)
class Proposer:
    """One generator source besides the hand-written one: `propose(problem)` gives its
    proposals for a problem (the pipeline calls it once the references are verified)."""

    source: str  # "inferred" | "llm" (problems.generators.SOURCES)
    propose: Callable[[SourceProblem], list[Proposal | Refusal]]  # a refusal: a rejected
    # proposal with its reason


def _as_proposal(result: Proposal | Refusal, source: str, name: str) -> Proposal:
    if isinstance(result, Refusal):
        return Proposal(name, source, "", error=f"refused: {result.reason}")
    return result


def inferred_proposer(size_max: int) -> Proposer:
    """The generator inferred from the problem's sample and correctness test inputs and its
    statement (problems/generators/infer.py), or its refusal; its counts reach the
    statement's limits at SIZE = `size_max` (the build's PipelineConfig.size_max)."""
    from problems.generators import infer

    def propose(problem: SourceProblem) -> list[Proposal | Refusal]:
        inputs = [
            test.input_path.read_bytes().decode(errors="replace")
            for test in problem.tests
            if test.kind in ("sample", "correctness")
        ]
        return [infer.propose(inputs, problem.statement, name="inferred", size_max=size_max)]

    return Proposer("inferred", propose)


def _sample_inputs(problem: SourceProblem) -> list[str]:
    tests = [t for t in problem.tests if t.kind == "sample"] or sorted(
        problem.tests, key=lambda t: t.input_path.stat().st_size
    )
    return [t.input_path.read_bytes().decode(errors="replace") for t in tests[:LLM_SAMPLE_INPUTS]]


def llm_proposer(environ: Mapping[str, str]) -> Proposer | None:
    """The LLM source when `environ` names an endpoint (problems/generators/llm.py; the
    number of generators per problem is its settings'), else None."""
    if not any(environ.get(name, "").strip() for name in LLM_ENDPOINT_VARIABLES):
        return None
    from problems.generators import llm

    settings = llm.GeneratorLLMSettings.from_env(environ)
    if settings is None:
        return None

    def propose(problem: SourceProblem) -> list[Proposal]:
        return llm.propose_generators(
            problem.slug,
            problem.statement,
            problem.time_limit_s,
            problem.memory_mb,
            _sample_inputs(problem),
            settings,
        )

    return Proposer("llm", propose)


def default_proposers(
    config: PipelineConfig, environ: Mapping[str, str] | None = None
) -> list[Proposer]:
    """The sources `config` asks for: inferred (infer_generators) and, when an endpoint is
    configured, llm (llm_generators)."""
    proposers = []
    if config.infer_generators:
        proposers.append(inferred_proposer(config.size_max))
    if config.llm_generators:
        llm = llm_proposer(os.environ if environ is None else environ)
        if llm is not None:
            proposers.append(llm)
    return proposers


def _safe_name(name: str) -> str:
    """A generator's name as file and test names can carry it."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:80] or "generator"


def proposals_for(problem: SourceProblem, proposers: list[Proposer]) -> list[Proposal]:
    """The hand-written generators (by name), then each proposer's proposals, each with its
    proposer's source and a name unique within the problem (a clash gets `-2`, `-3`...)."""
    proposals = [Proposal(name, "hand", code) for name, code in sorted(problem.generators.items())]
    for proposer in proposers:
        proposals += [
            dataclasses.replace(
                _as_proposal(p, proposer.source, proposer.source), source=proposer.source
            )
            for p in proposer.propose(problem)
        ]
    taken: set[str] = set()
    unique = []
    for proposal in proposals:
        base = name = _safe_name(proposal.name or proposal.source)
        number = 1
        while name in taken:
            number += 1
            name = f"{base}-{number}"
        taken.add(name)
        unique.append(dataclasses.replace(proposal, name=name))
    return unique
