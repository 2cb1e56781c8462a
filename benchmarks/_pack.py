"""Built pack problems without a database, for the timing benchmarks: import a package of
the built-in pack, run the construction pipeline on it and turn the outcome into what the
scorer uses (the stored reference runtimes and the tests). Plain Python.

The build is cached under var/bench/packs/ by slug and pipeline settings, so repeated
benchmark runs measure candidates, not builds.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from execution.engine import Case  # noqa: E402
from problems.importers.kattis import read_package  # noqa: E402
from problems.pipeline import build_problem  # noqa: E402
from problems.pipeline.model import (  # noqa: E402
    PipelineConfig,
    ProblemOutcome,
    SourceProblem,
    SourceSolution,
    written_source_problem,
)
from rewards.engine import ProblemRuntimes  # noqa: E402
from scoring.scorer import ScoringProblem  # noqa: E402

PACK = ROOT / "problems" / "packs" / "core"


@dataclass
class BuiltProblem:
    slug: str
    outcome: ProblemOutcome
    accepted_python: dict[str, str]  # name -> code
    scoring: ScoringProblem
    references: list[str]  # rows of scoring.runtimes.reference_costs


def source_problem(slug: str, folder: Path) -> SourceProblem:
    return imported_source_problem(read_package(PACK / slug), folder)


def imported_source_problem(imported, folder: Path) -> SourceProblem:
    """The pipeline's SourceProblem of an ImportedProblem (any importer's), its tests
    written under `folder`."""
    return written_source_problem(
        imported,
        folder,
        imported.tests,
        [
            SourceSolution(s["name"], s["language"], s["code"], s["verdict_label"])
            for s in imported.solutions
        ],
        imported.generators,
    )


def built(slug: str, config: PipelineConfig, work: Path) -> BuiltProblem:
    key = hashlib.sha256(json.dumps([slug, config.as_dict()], sort_keys=True).encode()).hexdigest()[
        :12
    ]
    cache = ROOT / "var" / "bench" / "packs" / f"{slug}-{key}.pickle"
    folder = work / slug
    folder.mkdir(parents=True, exist_ok=True)
    source = source_problem(slug, folder)
    if cache.exists():
        outcome = pickle.loads(cache.read_bytes())
    else:
        outcome = build_problem(source, config, workdir=work)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps(outcome))
    accepted = {
        s.name: s.code for s in source.solutions if s.label == "accepted" and s.language == "python"
    }
    optimization = [t for t in outcome.new_tests if t.kind == "optimization"]
    cases = []
    for test in optimization:
        base = folder / test.name.replace("/", "_")
        base.with_suffix(".in").write_bytes(test.input)
        base.with_suffix(".ans").write_bytes(test.answer)
        cases.append(
            Case(test.name, base.with_suffix(".in"), base.with_suffix(".ans"), "optimization")
        )
    correctness = [Case(t.name, t.input_path, t.answer_path, t.kind) for t in source.tests]
    references = sorted(accepted)
    costs = np.full((len(references), len(cases)), np.nan)
    for runtime in outcome.runtimes:
        if runtime.solution in accepted and runtime.purpose == "build":
            column = [c.name for c in cases].index(runtime.test)
            costs[references.index(runtime.solution), column] = (
                runtime.cost if runtime.cost is not None else np.inf
            )
    runtimes = ProblemRuntimes(
        costs,
        np.array([len(t.input) for t in optimization]),
        np.array([len(t.answer) for t in optimization]),
    )
    finite = costs[np.isfinite(costs)]
    scoring = ScoringProblem(
        slug,
        runtimes,
        correctness,
        cases,
        source.checker,
        cap_s=max(3 * float(finite.max()) if finite.size else 1.0, 1.0),
        reference_programs={name: accepted[name] for name in references},
    )
    return BuiltProblem(slug, outcome, accepted, scoring, references)
