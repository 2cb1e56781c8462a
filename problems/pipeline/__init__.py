"""The DMC-Optim construction pipeline (paper, sections 1-2), as plain Python.

For each problem, five stages, each counted in the build's funnel:
1. re-run every reference on the problem's own tests; drop the problem when a labelled-correct
   reference fails there;
   then its generators: the hand-written ones and those of the other sources (inferred from
   its tests, written by a model: problems/generators/sources.py), each validated in the
   sandbox (problems/generators/validate.py); only the valid ones feed stages 2-3;
2. correctness tests from the generators (G x C candidates), kept on consensus of the correct
   references; wrong references must be caught;
3. optimization tests: grow each generator's SIZE until the slowest correct reference needs
   about T_slow while the fastest stays well under it (bounded search);
4. time-discriminative filter: slowest/fastest ratio and rank order stable across repeats;
5. deterministic train/test split.

`problems.services.do_build_dataset` feeds it problems from the database and stores what it
returns; a trainer without a database can call `build_problem` directly.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from problems.generators.sources import Proposer
from problems.pipeline.model import (
    STAGES,
    BuildResult,
    PipelineConfig,
    ProblemOutcome,
    SourceProblem,
    SourceSolution,
    SourceTest,
)
from problems.pipeline.stages import ProblemBuilder, split_of

__all__ = [
    "STAGES",
    "BuildResult",
    "PipelineConfig",
    "Proposer",
    "ProblemOutcome",
    "SourceProblem",
    "SourceSolution",
    "SourceTest",
    "build_problem",
    "run_pipeline",
    "split_of",
]


def build_problem(
    problem: SourceProblem,
    config: PipelineConfig,
    *,
    workdir: Path | None = None,
    on_stage: Callable[[int, str], None] | None = None,
    proposers: list[Proposer] | None = None,
) -> ProblemOutcome:
    """Run the five stages on one problem (its test files must exist until this returns).
    `proposers`: the generator sources besides the hand-written generators (None: those
    `config` asks for)."""
    config.check()
    root = Path(tempfile.mkdtemp(prefix="codeopt-build-", dir=workdir))
    root.chmod(0o711)  # the sandbox user passes through to its boxes
    try:
        return ProblemBuilder(problem, config, root, on_stage, proposers).run()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_pipeline(
    problems: Iterable[SourceProblem], config: PipelineConfig, **options
) -> BuildResult:
    started = time.monotonic()
    outcomes = [build_problem(problem, config, **options) for problem in problems]
    return BuildResult(outcomes, sum(o.executions for o in outcomes), time.monotonic() - started)
