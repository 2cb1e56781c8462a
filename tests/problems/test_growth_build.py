"""Problems whose statements state no bound, through the whole construction pipeline with the
inferred generator alone (issue 33): our own code_contests records in
problems/packs/code_contests_unbounded.jsonl, every test of n <= 7. The speed-sensitive ones
reach optimization tests only by growing past SIZE_MAX; the ones whose references are all
O(1) or O(log N) are refused as untimeable, on their own funnel line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from problems.importers import code_contests
from problems.pipeline import BuildResult, PipelineConfig, build_problem
from problems.pipeline.model import SourceSolution, written_source_problem

RECORDS = Path(__file__).resolve().parents[2] / "problems/packs/code_contests_unbounded.jsonl"
# the settings of the trial: T_slow 0.3 s, 2 repeats
CONFIG = PipelineConfig(llm_generators=False, slow_target_s=0.3, repeats=2)


def imported(title: str):
    return next(
        item
        for _, item in code_contests.read_records(RECORDS)
        if not isinstance(item, code_contests.RecordError) and item.title.endswith(title)
    )


def build(title: str, config: PipelineConfig, tmp_path: Path):
    record = imported(title)
    folder = tmp_path / f"{record.slug}-{config.growth_probes}"
    folder.mkdir()
    folder.chmod(0o711)
    solutions = [
        SourceSolution(s["name"], s["language"], s["code"], s["verdict_label"])
        for s in record.solutions
    ]
    problem = written_source_problem(record, folder, record.tests, solutions, {})
    return build_problem(problem, config, workdir=folder)


def growth_check(outcome) -> dict:
    (inferred,) = [g for g in outcome.generators if g.proposal.source == "inferred"]
    return next(c for c in inferred.report["checks"] if c["name"] == "grows with SIZE")


@pytest.mark.parametrize("title", ["Prefix Sums", "Pairs With Sum"])
def test_a_speed_sensitive_problem_with_no_stated_bound_reaches_optimization_tests(title, tmp_path):
    before = build(title, dataclasses.replace(CONFIG, growth_probes=0), tmp_path)
    assert before.stage_reached == 2 and not before.untimeable
    assert before.reason.startswith("no valid input generator")
    assert "its time does not grow with SIZE" in growth_check(before)["detail"]

    after = build(title, CONFIG, tmp_path)
    assert after.kept, after.reason
    # the O(n^2) reference against the linear ones: 9.4x to 14.3x measured here on different
    # days (the machine's speed sets how far T_slow lets the input grow); linear references
    # among themselves stay under 2x
    assert after.discrimination > 5
    check = growth_check(after)
    assert check["passed"] and check["data"]["growth"]["stop"] == "reached"
    reach = check["data"]["large_size"]
    assert reach > CONFIG.size_max
    sizes = {t.size for t in after.new_tests if t.kind == "optimization"}
    assert max(sizes) > CONFIG.size_max  # the tests are grown past SIZE_MAX
    assert after.report["optimization"]["generators"]["inferred"]["reach"] == reach


def test_problems_no_input_slows_are_named_untimeable_on_their_own_funnel_line(tmp_path):
    outcomes = [build(title, CONFIG, tmp_path) for title in ("Triangular Number", "Power Of Two")]
    for outcome in outcomes:
        assert outcome.untimeable and outcome.stage_reached == 2
        assert outcome.reason.startswith("not time-discriminative: no input slows any reference")
        growth = growth_check(outcome)["data"]["growth"]
        assert growth["stop"] == "flat"  # the number reached the largest its type holds
    funnel = dict(BuildResult(outcomes, 0, 0.0).funnel())
    assert funnel["untimeable"] == 2 and funnel["optimization tests"] == 0


def test_an_echo_like_problem_seen_over_a_narrow_range_gets_inputs_that_vary(tmp_path):
    outcome = build("Countdown", CONFIG, tmp_path)
    (inferred,) = outcome.generators
    checks = {c["name"]: c for c in inferred.report["checks"]}
    assert checks["deterministic"]["passed"], checks["deterministic"]["detail"]
    assert checks["deterministic"]["data"]["distinct_inputs"] == CONFIG.validation_seeds
