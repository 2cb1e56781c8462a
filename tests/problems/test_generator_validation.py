"""Generator validation (problems/generators/validate.py), run in the sandbox on a tiny
problem: each way a generator fails, a valid one, and the sources the pipeline asks for."""

from __future__ import annotations

import dataclasses
import json

import pytest

from execution.checker import CheckerSettings
from execution.engine import Program
from problems.generators import Proposal, Refusal, sources
from problems.generators.validate import CHECKS, validate
from problems.pipeline import BuildResult, PipelineConfig, ProblemOutcome, SourceProblem
from problems.pipeline.model import NewTest, SourceTest, ValidatedGenerator
from problems.pipeline.runs import ProblemRuns, derive_seed

# Tiny sum: "n, then n integers; print their sum". SUM_ALL and SUM_LOOP add every number
# after the first (they trust the input to hold n), SUM_INDEXED adds nums[i] for i < n,
# thirty times over (the slow one): all three right on every valid input. With three, two
# that agree are a majority (stage 2 would keep the input): validation asks for all three.
SUM_ALL = "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\nprint(sum(nums))\n"
SUM_LOOP = (
    "import sys\ntotal = 0\nfor token in sys.stdin.read().split()[1:]:\n"
    "    total += int(token)\nprint(total)\n"
)
SUM_INDEXED = (
    "import sys\ndata = sys.stdin.read().split()\nn = int(data[0])\n"
    "nums = list(map(int, data[1:]))\ntotal = 0\nfor _ in range(30):\n"
    "    for i in range(n):\n        total += nums[i]\nprint(total // 30)\n"
)
ZERO = "print(0)\n"
# wrong only on sums of a million or more (GOOD's never reach 450,000)
WRONG_PAST_A_MILLION = SUM_ALL.replace(
    "print(sum(nums))", "print(sum(nums) if abs(sum(nums)) < 10**6 else 0)"
)


def numbers_generator(count: str, printed_n: str = "n") -> str:
    """A generator of `count` numbers in [-9, 9] (an expression of `size` and `rng`),
    printing `printed_n` as the count."""
    return (
        "import random, sys\nseed, size = int(sys.argv[1]), int(sys.argv[2])\n"
        f"rng = random.Random(seed)\nn = {count}\nprint({printed_n})\n"
        "print(' '.join(str(rng.randint(-9, 9)) for _ in range(n)))\n"
    )


GOOD = numbers_generator("1000 * size")  # 2,000 numbers at SIZE 2, 50,000 at SIZE 50
NOT_DETERMINISTIC = GOOD.replace("random.Random(seed)", "random.Random()")
MORE_THAN_PRINTED = numbers_generator("1000 * size", printed_n="n // 2")  # they disagree
FEWER_THAN_PRINTED = numbers_generator("1000 * size", printed_n="n + 5")  # SUM_INDEXED crashes
SAME_SIZE = numbers_generator("2000")  # SIZE ignored: nothing grows
FORK_BOMB = (
    "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
)
INFINITE_LOOP = "while True:\n    pass\n"

CONFIG = PipelineConfig(
    slow_target_s=0.4,  # the growth probe stops runs at 1.5 x 0.4 s
    size_max=50,  # SUM_INDEXED: ~0.01 s of work at SIZE 2, ~0.15 s at 50
    validation_size=2,
    generator_cpu_s=2.0,
    infer_generators=False,
    llm_generators=False,
)
CORRECT = [
    Program("sum_all", SUM_ALL, "python"),
    Program("sum_indexed", SUM_INDEXED, "python"),
    Program("sum_loop", SUM_LOOP, "python"),
]
WRONG = [Program("zero", ZERO, "python"), Program("past_a_million", WRONG_PAST_A_MILLION, "python")]


@pytest.fixture
def tiny(tmp_path) -> SourceProblem:
    (tmp_path / "own.in").write_text("3\n1 2 3\n")
    (tmp_path / "own.ans").write_text("6\n")
    return SourceProblem(
        slug="tiny-sum",
        time_limit_s=2.0,
        checker=CheckerSettings(),
        tests=[SourceTest("sample/1", "sample", tmp_path / "own.in", tmp_path / "own.ans")],
        solutions=[],
    )


def run(tiny, tmp_path, code: str, config: PipelineConfig = CONFIG, name: str = "gen"):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    work.chmod(0o711)  # the sandbox user passes through to its boxes
    report = validate(Proposal(name, "llm", code), tiny, config, work, CORRECT, WRONG)
    assert json.loads(json.dumps(report.as_dict())) == report.as_dict()  # JSON, as stored
    return report, {c.name: c for c in report.checks}


def outcomes(checks) -> dict[str, bool | None]:
    return {name: check.passed for name, check in checks.items()}


def test_a_valid_generator_passes_every_check_and_keeps_a_sample(tiny, tmp_path):
    report, checks = run(tiny, tmp_path, GOOD)
    assert report.valid and report.reasons == []
    assert list(checks) == list(CHECKS) and all(outcomes(checks).values())
    assert report.sample_input.startswith("2000\n")
    assert checks["consensus"].detail.startswith(
        "3 of 3 inputs at SIZE 2 get one answer from all 3"
    )
    # its inputs catch one wrong reference, not the other: recorded, not held against it
    wrong = checks["wrong references"].data
    assert (wrong["caught"], wrong["not_caught"]) == (["zero"], ["past_a_million"])
    growth = checks["grows with SIZE"].data
    assert growth["reference"] == "sum_indexed" and growth["ratio"] >= CONFIG.min_size_growth
    assert growth["large_runs"] == 3  # its pass confirmed by two more runs at the reach
    # 3 seeds + the first again + SIZE 50; 3 x 3 inputs; the wrong ones until they fail (zero
    # on its first input, past_a_million on none of the 3); 3 at SIZE 50, the slowest twice more
    assert report.executions == 5 + 9 + 1 + 3 + 3 + 2


def test_a_generator_that_is_not_deterministic_is_rejected(tiny, tmp_path):
    report, checks = run(tiny, tmp_path, NOT_DETERMINISTIC)
    assert not report.valid
    assert checks["deterministic"].passed is False
    assert checks["deterministic"].detail.endswith("gave different bytes on a second run")
    assert report.reasons[0].startswith("deterministic: seed ")
    assert checks["grows with SIZE"].passed is None  # the costly check is not run


def test_a_generator_whose_seeds_all_give_one_input_is_rejected(tiny, tmp_path):
    report, checks = run(tiny, tmp_path, GOOD.replace("random.Random(seed)", "random.Random(1)"))
    assert not report.valid
    assert checks["deterministic"].detail == "all 3 seeds gave the same input (the seed is ignored)"


def test_inputs_that_crash_a_correct_reference_are_dropped_and_too_few_reject_it(tiny, tmp_path):
    report, checks = run(tiny, tmp_path, FEWER_THAN_PRINTED)
    assert not report.valid and outcomes(checks)["consensus"] is False
    inputs = checks["consensus"].data["inputs"]
    # the input is blamed, not the reference: each names the reference it crashed (the two
    # others agree: a majority, which validation does not settle for)
    assert [entry["failed"] for entry in inputs] == [{"sum_indexed": "RUNTIME_ERROR"}] * 3
    assert not any(entry["kept"] for entry in inputs)
    assert checks["consensus"].detail.endswith("(at least 2 needed)")
    assert "sum_indexed RUNTIME_ERROR" in report.reasons[0]
    assert checks["deterministic"].passed and checks["size cap"].passed


def test_inputs_on_which_correct_references_disagree_reject_the_generator(tiny, tmp_path):
    report, checks = run(tiny, tmp_path, MORE_THAN_PRINTED)
    assert not report.valid
    inputs = checks["consensus"].data["inputs"]
    assert all(not entry["kept"] and entry["failed"] == {} for entry in inputs)
    # two of three agree (a majority, enough for stage 2): the input is dropped all the same
    assert [entry["disagreeing"] for entry in inputs] == [["sum_indexed"]] * 3
    assert checks["wrong references"].passed is None  # nothing kept to run them on


def test_a_generator_whose_time_does_not_grow_with_size_is_rejected(tiny, tmp_path):
    report, checks = run(tiny, tmp_path, SAME_SIZE)
    assert not report.valid
    assert [name for name, passed in outcomes(checks).items() if not passed] == ["grows with SIZE"]
    growth = checks["grows with SIZE"].data
    assert growth["ratio"] < CONFIG.min_size_growth
    detail = checks["grows with SIZE"].detail
    assert "needs 2x and 0.01 s more: its time does not grow with SIZE" in detail
    # its input keeps one size: a generator that ignores SIZE, not a problem no input slows
    assert detail.endswith("at SIZE 50)") and "its input does not grow either" in detail
    assert not report.untimeable and "not time-discriminative" not in detail


def test_a_generator_over_the_size_cap_is_rejected(tiny, tmp_path):
    capped = dataclasses.replace(CONFIG, max_input_bytes=20_000)  # ~5 KB at SIZE 2, ~125 KB at 50
    report, checks = run(tiny, tmp_path, GOOD, capped)
    assert not report.valid
    assert checks["size cap"].passed is False
    assert checks["size cap"].detail.startswith("SIZE 50: an input of ")
    assert checks["size cap"].detail.endswith("bytes, over the 20000-byte cap")
    assert checks["consensus"].passed and checks["deterministic"].passed


@pytest.mark.parametrize("code", [FORK_BOMB, INFINITE_LOOP], ids=["fork bomb", "infinite loop"])
def test_a_hostile_generator_is_stopped_by_the_sandbox_and_rejected(tiny, tmp_path, code):
    config = dataclasses.replace(CONFIG, generator_cpu_s=0.5)
    report, checks = run(tiny, tmp_path, code, config)
    assert not report.valid and report.sample_input == ""
    assert checks["runs"].passed is False
    assert checks["runs"].detail.endswith("generator ran past its 0.5 s limit")
    assert [c for c in CHECKS if checks[c].passed is not None] == ["runs"]  # nothing else ran
    assert report.executions == 1  # its first run only


def test_a_consensus_that_contradicts_the_problems_own_test_rejects_the_generator(tiny, tmp_path):
    (tmp_path / "own.ans").write_text("7\n")  # the own test says 1 + 2 + 3 is 7
    first_seed = derive_seed("tiny-sum", "gen", "validation", 0)
    own_input = f"if seed == {first_seed}:\n    print('3\\n1  2 3')\n    raise SystemExit\n"
    repeats_own = GOOD.replace("print(n)\n", own_input + "print(n)\n")  # the own test, spaced
    report, checks = run(tiny, tmp_path, repeats_own)
    assert checks["wrong references"].passed is False
    assert checks["wrong references"].data["contradicted"] == ["sample/1"]
    assert report.reasons == [
        "wrong references: the consensus contradicts the problem's own test(s) sample/1"
    ]
    (tmp_path / "own.ans").write_text("6\n")  # the same input, agreeing: nothing to say
    assert outcomes(run(tiny, tmp_path, repeats_own)[1])["wrong references"] is True


def test_a_proposal_without_a_program_is_rejected_with_its_sources_reason(tiny, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    refused = Proposal("inferred", "inferred", "", error="refused: no layout read")
    report = validate(refused, tiny, CONFIG, work, CORRECT, WRONG)
    assert (report.valid, report.reasons, report.executions) == (
        False,
        ["runs: refused: no layout read"],
        0,
    )


# -- the sources ---------------------------------------------------------------------------


def test_the_sources_a_config_asks_for(tiny):
    assert sources.default_proposers(CONFIG, environ={}) == []  # FAST: hand-written only
    asked = dataclasses.replace(CONFIG, infer_generators=True, llm_generators=True)
    (inferred,) = sources.default_proposers(asked, environ={})  # no endpoint: no LLM source
    assert inferred.source == "inferred"
    (proposal,) = inferred.propose(tiny)
    assert proposal.source == "inferred" and proposal.provenance["size_max"] == CONFIG.size_max
    endpoint = {"GENERATOR_LLM_BASE_URL": "http://127.0.0.1:9", "GENERATOR_LLM_MODEL": "m"}
    assert [p.source for p in sources.default_proposers(asked, environ=endpoint)] == [
        "inferred",
        "llm",
    ]


def test_proposals_get_their_proposers_source_and_names_unique_in_the_problem(tiny):
    tiny.generators = {"random": GOOD}
    proposers = [
        sources.Proposer("inferred", lambda p: [Refusal("no layout")]),
        sources.Proposer(
            "llm", lambda p: [Proposal("random", "hand", GOOD), Proposal("a/b", "llm", GOOD)]
        ),
    ]
    proposals = sources.proposals_for(tiny, proposers)
    assert [(p.name, p.source) for p in proposals] == [
        ("random", "hand"),
        ("inferred", "inferred"),
        ("random-2", "llm"),
        ("a-b", "llm"),
    ]
    assert proposals[1].error == "refused: no layout" and proposals[1].code == ""


# -- the funnel ------------------------------------------------------------------------------


def _outcome(slug, stage, generators, tests) -> ProblemOutcome:
    """An outcome whose `generators` are (name, source, valid) and `tests` (kind, generator)."""
    outcome = ProblemOutcome(slug, stage_reached=stage, kept=stage == 5)
    outcome.generators = [
        ValidatedGenerator(Proposal(name, source, "code"), {"valid": valid})
        for name, source, valid in generators
    ]
    outcome.new_tests = [
        NewTest(f"{kind}/{g}", kind, g, 1, 1, b"", b"", "", []) for kind, g in tests
    ]
    return outcome


def test_the_generator_funnel_counts_per_source_and_what_each_made_a_problem_reach():
    outcomes = [
        # hand and llm both made its optimization tests; the inferred one was rejected
        _outcome(
            "a",
            5,
            [("random", "hand", True), ("llm-1", "llm", True), ("inferred", "inferred", False)],
            [("correctness", "random"), ("optimization", "random"), ("optimization", "llm-1")],
        ),
        # no hand-written generator: the inferred one alone took it to stage 3
        _outcome(
            "b",
            3,
            [("inferred", "inferred", True), ("llm-1", "llm", False), ("llm-2", "llm", False)],
            [("correctness", "inferred"), ("optimization", "inferred")],
        ),
        # a valid llm generator whose correctness tests were kept, no optimization test
        _outcome("c", 2, [("llm-1", "llm", True)], [("correctness", "llm-1")]),
        _outcome("d", 0, [], []),  # stopped at stage 1: never proposed anything
    ]
    funnel = BuildResult(outcomes, 0, 0.0).generator_funnel()
    stages = ["consensus correctness tests", "optimization tests", "time-discriminative"]
    assert funnel["stages"] == stages
    rows = funnel["sources"]
    assert {s: (r["proposed"], r["valid"]) for s, r in rows.items()} == {
        "hand": (1, 1),
        "inferred": (2, 1),
        "llm": (4, 2),
    }
    assert {s: (r["problems_proposed"], r["problems_valid"]) for s, r in rows.items()} == {
        "hand": (1, 1),
        "inferred": (2, 1),
        "llm": (3, 2),
    }
    assert rows["hand"]["stages"] == dict(zip(stages, [1, 1, 1], strict=True))
    assert rows["hand"]["alone"] == dict(zip(stages, [1, 0, 0], strict=True))
    assert rows["inferred"]["stages"] == dict(zip(stages, [1, 1, 0], strict=True))
    assert rows["inferred"]["alone"] == dict(zip(stages, [1, 1, 0], strict=True))
    assert rows["llm"]["stages"] == dict(zip(stages, [1, 1, 1], strict=True))  # c; a twice
    assert rows["llm"]["alone"] == dict(zip(stages, [1, 0, 0], strict=True))


def test_a_pass_on_one_slow_run_at_the_reach_is_confirmed_by_the_lowest_of_more(
    tiny, tmp_path, monkeypatch
):
    """A loaded host can make the one run at the reach slower by chance (0.5 s more here):
    the generator whose time does not grow is still rejected, on the lowest of three runs."""
    real_probe = ProblemRuns.probe
    slowed: set[int] = set()

    def slowed_by_a_neighbour(self, *args, **kwargs):
        probe = real_probe(self, *args, **kwargs)
        if probe is not None and id(probe) not in slowed:  # each probe's first run, once
            slowed.add(id(probe))
            for runs in probe.outputs.values():
                result, _ = runs[probe.case.name]
                result.cpu_s = None if result.cpu_s is None else result.cpu_s + 0.5
        return probe

    monkeypatch.setattr(ProblemRuns, "probe", slowed_by_a_neighbour)
    report, checks = run(tiny, tmp_path, SAME_SIZE)
    growth = checks["grows with SIZE"].data
    assert not report.valid and checks["grows with SIZE"].passed is False
    assert growth["large_runs"] == 3  # the slow run passed, and was run twice more
    assert growth["large_s"] < growth["small_s"] + 0.5 and growth["ratio"] < 2
