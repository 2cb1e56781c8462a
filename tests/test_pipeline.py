"""The construction pipeline's stages on small real problems, run in the sandbox."""

from __future__ import annotations

import dataclasses

import pytest

from problems.pipeline import BuildResult, PipelineConfig, build_problem, split_of
from problems.pipeline.stages import derive_seed
from tests.pipeline_problems import (
    CRASHING_GEN,
    FAST_CONFIG,
    LOOPING_GEN,
    MIDDLE,
    POSITIVE_ONLY,
    RANDOM_GEN,
    SUM_CPP,
    sum_problem,
)
from workers.execution.samples import FAST


def test_a_good_problem_passes_every_stage(tmp_path):
    outcome = build_problem(sum_problem(tmp_path / "sum"), FAST_CONFIG)
    assert (outcome.kept, outcome.stage_reached, outcome.reason) == (True, 5, "")
    kinds = [(t.kind, t.generator, t.size) for t in outcome.new_tests]
    assert kinds == [
        ("correctness", "random", 2),
        ("correctness", "random", 8),
        ("optimization", "random", 100),  # the slow reference needs ~0.3 s only at the top
    ]
    optimization = outcome.new_tests[-1]
    assert sorted(optimization.agreeing) == ["fast", "middle", "slow"]
    assert optimization.seed == derive_seed("sum", "random", "optimization", 100, 0)
    assert outcome.report["consensus"]["wrong_caught"] == ["off"]
    # every reference, the wrong one included, measured on the optimization test
    measured = [r for r in outcome.runtimes if r.purpose == "build"]
    # stage 1 keeps one run of each correct reference on each of the package's tests
    verify = {(r.solution, r.test) for r in outcome.runtimes if r.purpose == "verify"}
    assert verify == {(s, t) for s in ("fast", "middle", "slow") for t in ("secret/0", "secret/1")}
    verdicts = {r.solution: r.verdict for r in measured}
    assert verdicts == {"fast": "OK", "middle": "OK", "slow": "OK", "off": "WRONG_ANSWER"}
    slow = next(r for r in measured if r.solution == "slow")
    assert len(slow.samples) == FAST_CONFIG.repeats
    assert outcome.discrimination > FAST_CONFIG.min_ratio  # ~7x: a loop doing 20x the work
    assert outcome.rank_stability >= FAST_CONFIG.min_rank_stability
    assert outcome.split == split_of("sum", FAST_CONFIG)
    # 4 references x 2 package tests; 2 generator runs + 3 x 2 candidates; the wrong one on
    # 2 new tests; 1 generator run + 3 at SIZE=100; 3 x 2 repeats + 1 (failed: not repeated)
    assert outcome.executions == 8 + 8 + 2 + 4 + 7


def test_the_size_search_stops_where_the_slowest_reference_meets_the_target(tmp_path):
    config = dataclasses.replace(FAST_CONFIG, slow_target_s=0.08, max_probes=5)
    outcome = build_problem(sum_problem(tmp_path / "sum"), config)
    search = outcome.report["optimization"]["generators"]["random"]
    probes = search["probes"]
    assert 2 <= len(probes) <= 5 and probes[0]["size"] == 100
    assert probes[0]["slowest_s"] is None or probes[0]["slowest_s"] > 0.08  # None: timed out
    assert search["size"] < 100
    chosen = next(p for p in probes if p["size"] == search["size"])
    assert chosen["slowest_s"] <= 0.08
    larger = [p for p in probes if p["size"] > search["size"]]
    assert all(p["slowest_s"] is None or p["slowest_s"] > 0.08 for p in larger)


def test_a_problem_whose_correct_reference_fails_is_dropped_at_stage_one(tmp_path):
    problem = sum_problem(
        tmp_path / "sum", accepted={"fast": FAST, "crash": "raise SystemExit(3)\n"}
    )
    outcome = build_problem(problem, FAST_CONFIG)
    assert (outcome.kept, outcome.stage_reached) == (False, 0)
    assert outcome.reason.startswith("correct references fail on the problem's tests: crash:")
    assert "RUNTIME_ERROR on secret/0" in outcome.reason
    assert not outcome.new_tests and not outcome.runtimes


def test_looping_and_crashing_generators_are_reported_and_the_others_used(tmp_path):
    problem = sum_problem(
        tmp_path / "sum",
        generators={"loops": LOOPING_GEN, "crashes": CRASHING_GEN, "random": RANDOM_GEN},
    )
    config = dataclasses.replace(FAST_CONFIG, generator_candidates=1, generator_cpu_s=1.0)
    outcome = build_problem(problem, config)
    failed = outcome.report["consensus"]["generators"]
    assert failed["loops"] == "SIZE=2: generator ran past its 1 s limit"
    assert failed["crashes"].startswith("SIZE=2: generator failed (exit 1): no input for you")
    assert {t.generator for t in outcome.new_tests} == {"random"}
    assert outcome.stage_reached >= 3  # the optimization test came from "random"


def test_a_reference_out_of_consensus_is_named_and_no_majority_drops_the_test(tmp_path):
    # three "correct" references: two agree, one only looks right on the package's tests
    problem = sum_problem(
        tmp_path / "sum",
        accepted={"fast": FAST, "middle": MIDDLE, "positive": POSITIVE_ONLY},
    )
    outcome = build_problem(problem, FAST_CONFIG)
    consensus = outcome.report["consensus"]
    assert consensus["references_out_of_consensus"] == ["positive"]
    assert all(c["disagreeing"] == ["positive"] for c in consensus["candidates"])
    assert all(sorted(t.agreeing) == ["fast", "middle"] for t in outcome.new_tests)
    # with only two references and one of them wrong, nothing has a majority
    two = sum_problem(tmp_path / "two", accepted={"fast": FAST, "positive": POSITIVE_ONLY})
    dropped = build_problem(two, FAST_CONFIG)
    assert (dropped.stage_reached, dropped.reason) == (1, "no generated input reached consensus")
    assert {c["reason"] for c in dropped.report["consensus"]["candidates"]} == {
        "only 1 reference(s) agree; at least 2 needed"
    }


def test_references_of_the_same_speed_are_not_time_discriminative(tmp_path):
    same = {"a": FAST, "b": FAST.replace("nums", "values")}
    problem = sum_problem(tmp_path / "sum", accepted=same, cpp={"c.cpp": SUM_CPP})
    config = dataclasses.replace(FAST_CONFIG, slow_target_s=0.05, fast_fraction=1.0)
    outcome = build_problem(problem, config)
    assert (outcome.kept, outcome.stage_reached) == (False, 3)
    assert outcome.reason.startswith("slowest/fastest = 1.")
    # the C++ reference is measured (and stored for the problem page) but does not count:
    # programs are ranked among references in their own language
    assert outcome.report["discrimination"]["references"] == ["a", "b"]
    assert {r.solution for r in outcome.runtimes if r.purpose == "build"} == {
        "a",
        "b",
        "c.cpp",
        "off",
    }
    every_language = dataclasses.replace(config, ranking_language="")
    mixed = build_problem(
        sum_problem(tmp_path / "mixed", accepted=same, cpp={"c": SUM_CPP}), every_language
    )
    assert mixed.discrimination > 2  # C++ next to Python: a ratio that says nothing


def test_a_problem_without_generators_stops_before_optimization_tests(tmp_path):
    outcome = build_problem(sum_problem(tmp_path / "sum", generators={}), FAST_CONFIG)
    assert outcome.stage_reached == 2
    assert outcome.reason == "no input generator: optimization tests cannot be grown"


def test_the_split_is_deterministic_and_follows_the_fraction():
    config = PipelineConfig()
    slugs = [f"problem-{i}" for i in range(20000)]
    splits = [split_of(s, config) for s in slugs]
    assert splits == [split_of(s, config) for s in slugs]
    assert 0.24 < splits.count("test") / len(splits) < 0.26  # 0.25 +- 3 standard deviations
    other = dataclasses.replace(config, split_seed="another")
    assert splits != [split_of(s, other) for s in slugs]


def test_the_funnel_counts_each_stage_and_the_split():
    from problems.pipeline import ProblemOutcome

    outcomes = [
        ProblemOutcome("a", stage_reached=5, kept=True, split="train"),
        ProblemOutcome("b", stage_reached=5, kept=True, split="test"),
        ProblemOutcome("c", stage_reached=3),
        ProblemOutcome("d", stage_reached=1),
        ProblemOutcome("e", stage_reached=0),
    ]
    assert BuildResult(outcomes, 0, 0.0).funnel() == [
        ("candidates", 5),
        ("references verified", 4),
        ("consensus correctness tests", 3),
        ("optimization tests", 3),
        ("time-discriminative", 2),
        ("train", 1),
        ("test", 1),
    ]


@pytest.mark.parametrize(
    "data, message",
    [
        ({"slow_target_s": "fast"}, "slow_target_s: 'fast' is not a float"),
        ({"repeats": 1}, "repeats: at least 2 (rank stability compares repeats)"),
        ({"colour": "red"}, "colour: not a pipeline setting"),
        ({"correctness_sizes": "2,x"}, "correctness_sizes: '2,x' is not a tuple"),
        ({"test_fraction": 1.5}, "test_fraction: must be in [0, 1]"),
    ],
)
def test_a_bad_setting_is_named(data, message):
    with pytest.raises(ValueError) as error:
        PipelineConfig.from_dict(data)
    assert str(error.value) == message
