"""Dataset builds: the construction pipeline (problems.pipeline) run on stored problems, its
outcome stored."""

from __future__ import annotations

import gzip
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from django.db import transaction
from django.db.models import Q

from execution.anchors import measure_anchors
from foundation.jobs import Progress, claim, failure_recorded, finish
from foundation.sending import enqueue
from problems.importers.kattis import ImportedTest
from problems.models import (
    DatasetBuild,
    GeneratorSource,
    InputGenerator,
    Problem,
    ProblemBuild,
    ProblemTest,
    ReferenceRuntime,
    Split,
)
from problems.pipeline import (
    BuildResult,
    PipelineConfig,
    ProblemOutcome,
    Proposer,
    SourceProblem,
    SourceSolution,
    build_problem,
)
from problems.pipeline.model import written_source_problem
from problems.services.references import runtime_rows

log = logging.getLogger(__name__)


def check_build_request(config_data: dict, slugs: list[str]) -> tuple[PipelineConfig, list[str]]:
    """A pipeline config from a form's or a command line's values (text, or numbers) and the
    problems it runs on; ValueError naming the field at fault."""
    config = PipelineConfig.from_text(config_data)
    slugs = [s.strip() for s in slugs if s.strip()]
    known = set(Problem.objects.filter(slug__in=slugs).values_list("slug", flat=True))
    unknown = [s for s in slugs if s not in known]
    if unknown:
        raise ValueError(f"problems: no problem {', '.join(unknown[:5])}")
    if not slugs and not Problem.objects.exists():
        raise ValueError("problems: the problem set is empty; import problems first")
    return config, slugs


def do_create_build(
    config: PipelineConfig, slugs: list[str], started_by: str = "", *, queue: bool = True
) -> DatasetBuild:
    """Record a build; with `queue`, the Celery task starts after the row is committed
    (without, the caller runs it with do_run_build)."""
    build = DatasetBuild.objects.create(
        config=config.as_dict(), problem_slugs=slugs, started_by=started_by
    )
    if queue:
        enqueue("problems.run_dataset_build", build.id)
    return build


def source_problem(problem: Problem, folder: Path) -> SourceProblem:
    """The problem as pipeline input, its imported tests written under `folder`."""
    own_tests = (
        ImportedTest(
            test.name,
            test.kind,
            gzip.decompress(bytes(test.input_gz)),
            gzip.decompress(bytes(test.answer_gz)),
        )
        for test in problem.tests.filter(generator=None, regenerate=False)
    )
    return written_source_problem(
        problem,
        folder,
        own_tests,
        [
            SourceSolution(s.name, s.language, s.code, s.verdict_label)
            for s in problem.solutions.all()
        ],
        dict(problem.generators.filter(source=GeneratorSource.HAND).values_list("name", "code")),
    )


def _store_generators(problem: Problem, outcome: ProblemOutcome) -> dict[str, InputGenerator]:
    """The build's generators as rows (the caller holds the transaction and has deleted the
    generated tests): hand-written rows stay as imported, with this validation; each other
    source that proposed replaces its previous rows, rejected proposals included. Returns
    the problem's generators by name."""
    validated = {g.proposal.name: g for g in outcome.generators}
    proposed = [g for g in outcome.generators if g.proposal.source != GeneratorSource.HAND]
    replaced = set(outcome.generator_sources) - {GeneratorSource.HAND}
    problem.generators.exclude(source=GeneratorSource.HAND).filter(
        Q(source__in=replaced) | Q(name__in=[g.proposal.name for g in proposed])
    ).delete()
    hand = list(problem.generators.filter(source=GeneratorSource.HAND, name__in=list(validated)))
    for row in hand:
        row.valid, row.report = validated[row.name].valid, validated[row.name].report
        row.sample_input = row.report.get("sample_input", "")
    InputGenerator.objects.bulk_update(hand, ["valid", "report", "sample_input"])
    InputGenerator.objects.bulk_create(
        InputGenerator(
            problem=problem,
            name=g.proposal.name,
            code=g.proposal.code,
            source=g.proposal.source,
            provenance=g.proposal.provenance,
            report=g.report,
            valid=g.valid,
            sample_input=g.report.get("sample_input", ""),
        )
        for g in proposed
    )
    return {g.name: g for g in problem.generators.all()}


def do_store_outcome(build: DatasetBuild, problem: Problem, outcome: ProblemOutcome) -> None:
    """Replace the problem's generated tests, proposed generators and stored reference
    runtimes with what this build made, and record how far the problem got, all in one
    transaction."""
    with transaction.atomic():
        problem.tests.exclude(generator=None).delete()  # the previous build's (and runtimes)
        ReferenceRuntime.objects.filter(test__problem=problem, purpose="verify").delete()
        generators = _store_generators(problem, outcome)
        tests = {t.name: t for t in problem.tests.all()}  # the problem's own, after the delete
        for new in outcome.new_tests:
            stored_input = new.kind != "optimization"  # large: regenerated on demand
            tests[new.name] = ProblemTest.objects.create(
                problem=problem,
                name=new.name,
                kind=new.kind,
                input_gz=gzip.compress(new.input, 6) if stored_input else b"",
                answer_gz=gzip.compress(new.answer, 6),
                input_bytes=len(new.input),
                answer_bytes=len(new.answer),
                generator=generators[new.generator],
                seed=new.seed,
                size=new.size,
                regenerate=not stored_input,
                input_sha256=new.sha256,
            )
        solutions = {s.name: s for s in problem.solutions.all()}
        ReferenceRuntime.objects.bulk_create(
            runtime_rows(outcome.runtimes, solutions, tests, "cpu")
        )
        ProblemBuild.objects.create(
            build=build,
            problem=problem,
            stage_reached=outcome.stage_reached,
            kept=outcome.kept,
            reason=outcome.reason,
            report=outcome.report,
        )
        problem.split = outcome.split if outcome.kept else Split.UNASSIGNED
        problem.discrimination = outcome.discrimination
        problem.rank_stability = outcome.rank_stability
        problem.save(update_fields=["split", "discrimination", "rank_stability", "updated_at"])


def _store_anchors(build: DatasetBuild, workdir: Path | None) -> None:
    """The anchors measured beside the references (the timing hosts' calibration baseline,
    scoring/calibration.py); a build whose anchors fail still builds, without one."""
    try:
        costs = measure_anchors(workdir=workdir)
    except (RuntimeError, OSError) as exc:
        log.warning("build %s: anchors not measured: %s", build.pk, exc)
        return
    build.anchor_costs = costs
    DatasetBuild.objects.filter(pk=build.pk).update(anchor_costs=costs)


def do_run_build(
    build_id: int,
    workdir: Path | None = None,
    on_update: Callable[[DatasetBuild], None] | None = None,
    worker: str = "",
    proposers: list[Proposer] | None = None,
) -> DatasetBuild:
    """Run a queued build to the end, storing each problem's outcome as it finishes and the
    progress on the build row (the dataset page polls it; `on_update` sees each change).
    `proposers`: the generator sources besides the hand-written ones (None: the config's)."""
    build = claim(DatasetBuild, build_id, worker, stage="loading problems")
    if build is None:  # delivered again after it ended
        return DatasetBuild.objects.get(pk=build_id)
    started = time.monotonic()
    outcomes: list[ProblemOutcome] = []
    with failure_recorded(DatasetBuild.objects.filter(pk=build.pk)):
        config = PipelineConfig.from_dict(build.config)
        problems = Problem.objects.order_by("slug")
        if build.problem_slugs:
            problems = problems.filter(slug__in=build.problem_slugs)
        problems = list(problems)
        tracker = Progress(build, total=5 * len(problems))  # five stages a problem
        tracker.stage("measuring the anchor programs")
        _store_anchors(build, workdir)
        for index, problem in enumerate(problems):

            def on_stage(stage: int, name: str, index=index, problem=problem) -> None:
                build.executions = sum(o.executions for o in outcomes)
                DatasetBuild.objects.filter(pk=build.pk).update(executions=build.executions)
                tracker.set(5 * index + stage, stage=f"{problem.slug}: {name}")
                if on_update is not None:
                    on_update(build)

            with tempfile.TemporaryDirectory(prefix="codeopt-source-", dir=workdir) as folder:
                source = source_problem(problem, Path(folder))
                outcome = build_problem(
                    source, config, workdir=workdir, on_stage=on_stage, proposers=proposers
                )
            do_store_outcome(build, problem, outcome)
            outcomes.append(outcome)
    result = BuildResult(outcomes, sum(o.executions for o in outcomes), time.monotonic() - started)
    finish(
        build,
        stage="done",
        funnel=[list(step) for step in result.funnel()],
        generator_funnel=result.generator_funnel(),
        executions=result.executions,
        wall_seconds=result.wall_seconds,
    )
    build.refresh_from_db()
    return build
