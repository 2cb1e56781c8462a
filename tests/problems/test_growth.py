"""Growth by measurement (problems/generators/growth.py, issue 33): a generator whose
statement states no bound grows past SIZE_MAX until the slowest correct reference needs
T_slow, and stops, saying why, at the byte cap, where its input stops growing, or where the
references disagree; a problem no input slows is named untimeable; seeds that all give one
input widen an inferred generator's narrow ranges first. Run in the sandbox on the tiny sum
problem of test_generator_validation.py."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys

import pytest

from execution.checker import CheckerSettings
from execution.engine import Program
from problems.generators import Proposal, infer
from problems.generators.validate import validate
from problems.pipeline import PipelineConfig, SourceProblem
from problems.pipeline.model import SourceTest
from tests.problems.test_generator_validation import CONFIG, CORRECT, WRONG, numbers_generator

GROWING = numbers_generator("40 * size")  # 2,000 numbers at SIZE 50: sum_indexed ~0.01 s
REFERENCES = {p.name for p in CORRECT}


@pytest.fixture
def tiny(tmp_path) -> SourceProblem:
    (tmp_path / "own.in").write_text("3\n1 2 3\n")
    (tmp_path / "own.ans").write_text("6\n")
    own = SourceTest("sample/1", "sample", tmp_path / "own.in", tmp_path / "own.ans")
    return SourceProblem("tiny-sum", 2.0, CheckerSettings(), [own], [])


def grown(tiny, tmp_path, code, source="llm", config: PipelineConfig = CONFIG):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    work.chmod(0o711)
    proposal = Proposal("gen", source, code, {"grows_past_size_max": True})
    report = validate(proposal, tiny, config, work, CORRECT, WRONG)
    check = next(c for c in report.checks if c.name == "grows with SIZE")
    return report, check


def slowest(point: dict) -> float:
    return max(float("inf") if c is None else c for c in point["costs"].values())


def test_a_generator_with_no_stated_bound_grows_until_the_slowest_needs_t_slow(tiny, tmp_path):
    report, check = grown(tiny, tmp_path, GROWING)
    assert report.valid and report.reach > CONFIG.size_max
    data = check.data
    assert data["growth"]["stop"] == "reached" and data["growth"]["probes"] >= 2
    curve = data["curve"]
    sizes = [p["size"] for p in curve]
    assert sizes[:2] == [CONFIG.validation_size, CONFIG.size_max]
    assert sizes == sorted(sizes) and sizes[-1] == report.reach
    assert all(set(p["costs"]) == REFERENCES for p in curve)  # the probe curve: every one
    assert [p["bytes"] for p in curve] == sorted(p["bytes"] for p in curve)
    # it stopped at the first SIZE where the slowest reached T_slow, not before, not after
    assert slowest(curve[-1]) >= CONFIG.slow_target_s > slowest(curve[-2])
    assert f"growth: SIZE {report.reach}: the slowest reference, sum_indexed" in check.detail
    assert data["large_size"] == report.reach and data["ratio"] >= CONFIG.min_size_growth
    assert report.limit > report.reach  # stage 3 may grow it further for the fastest's work


@pytest.mark.parametrize(
    "source, config, stop, why",
    [
        ("hand", CONFIG, "fixed", "a hand-written generator reaches its statement's limits"),
        ("llm", dataclasses.replace(CONFIG, growth_probes=0), "off", "growth is off"),
    ],
    ids=["hand-written", "growth off"],
)
def test_a_stated_bound_or_growth_off_keeps_size_max(tiny, tmp_path, source, config, stop, why):
    report, check = grown(tiny, tmp_path, GROWING, source, config)
    assert report.reach == report.limit == CONFIG.size_max
    assert [p["size"] for p in check.data["curve"]] == [CONFIG.validation_size, CONFIG.size_max]
    growth = check.data["growth"]
    assert (growth["stop"], growth["probes"]) == (stop, 0) and why in growth["why"]


def test_an_input_that_stops_growing_stops_the_climb(tiny, tmp_path):
    report, check = grown(tiny, tmp_path, numbers_generator("40 * min(size, 200)"))
    growth = check.data["growth"]
    assert growth["stop"] == "flat" and report.reach == 200
    assert "SIZE 800: its input stopped growing" in growth["why"]
    assert growth["why"].endswith("kept at SIZE 200")


def test_the_byte_cap_stops_the_climb(tiny, tmp_path):
    capped = dataclasses.replace(CONFIG, max_input_bytes=12_000)  # ~5 KB at SIZE 50
    report, check = grown(tiny, tmp_path, GROWING, config=capped)
    growth = check.data["growth"]
    assert growth["stop"] == "cap" and report.reach == CONFIG.size_max
    assert growth["why"].startswith("SIZE 200: its input (")
    assert "passes the 12,000-byte cap" in growth["why"]


def test_references_that_disagree_past_size_max_stop_the_climb(tiny, tmp_path):
    # past SIZE 50 it prints half the count: not an input the problem allows
    code = numbers_generator("40 * size", printed_n="n if size <= 50 else n // 2")
    report, check = grown(tiny, tmp_path, code)
    growth = check.data["growth"]
    assert growth["stop"] == "failed" and report.reach == CONFIG.size_max
    assert growth["why"].startswith("SIZE 200: the correct references disagree")


def test_a_problem_no_input_slows_is_named_untimeable(tiny, tmp_path):
    # one number, more digits with SIZE (to 18): every reference reads two tokens
    code = (
        "import random, sys\nseed, size = int(sys.argv[1]), int(sys.argv[2])\n"
        "rng = random.Random(seed)\nprint(1)\nprint(rng.randint(1, 10 ** min(18, size)))\n"
    )
    report, check = grown(tiny, tmp_path, code)
    assert not report.valid and report.untimeable
    assert [r.split(":")[0] for r in report.reasons] == ["grows with SIZE"]
    assert "not time-discriminative: no input slows any reference" in check.detail
    assert check.data["growth"]["stop"] == "flat"
    curve = check.data["curve"]
    assert all(slowest(p) < 0.1 for p in curve) and curve[-1]["bytes"] > 2 * curve[0]["bytes"]


def test_a_generator_that_ignores_size_is_not_called_untimeable(tiny, tmp_path):
    report, check = grown(tiny, tmp_path, numbers_generator("2000"))
    assert not report.valid and not report.untimeable
    assert "its input does not grow either" in check.detail


# -- the inferred generator: what grows, and widening -------------------------------------


def generated(code: str, seed: int, size: int, tmp_path) -> str:
    path = tmp_path / "gen.py"
    path.write_text(code)
    argv = [sys.executable, "-P", str(path), str(seed), str(size)]
    return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60).stdout


INPUTS = ["3\n1 2 3\n", "2\n5 6\n", "4\n1 1 2 2\n"]
STATED = "The first line holds n (1 ≤ n ≤ 1000). Then n integers a_i (1 ≤ a_i ≤ 10^9)."


def test_the_inferrer_grows_only_what_no_statement_bounds(tmp_path):
    free = infer.propose(INPUTS, "", size_max=100)
    bounded = infer.propose(INPUTS, STATED, size_max=100)
    assert free.provenance["grows_past_size_max"] == ["v0"]  # the count; values never grow
    assert "grows_past_size_max" not in bounded.provenance
    counts = {size: int(generated(free.code, 7, size, tmp_path).split()[0]) for size in (100, 6400)}
    assert counts == {100: 40, 6400: 40 * 64}  # 10 x the largest seen, then in proportion
    assert int(generated(bounded.code, 7, 6400, tmp_path).split()[0]) == 1000  # the statement's
    values = generated(free.code, 7, 6400, tmp_path).split()[1:]
    assert {int(v) for v in values} <= set(range(1, 7))  # the values seen, not grown


def test_a_number_alone_grows_within_its_type_and_stops_there(tmp_path):
    proposal = infer.propose(["5\n", "12\n", "2000000000\n"], "", size_max=100)
    # 2 x 10^9 grows to 2^31 - 1 only: SIZE 108 reaches it
    assert proposal.provenance["grows_until"] == math.ceil(100 * (2**31 - 1) / 2_000_000_000)
    drawn = [int(generated(proposal.code, seed, 10**6, tmp_path)) for seed in range(5)]
    assert max(drawn) <= 2**31 - 1


def test_seeds_that_give_one_input_widen_the_observed_range_first(tmp_path):
    for name, text in (("own.in", "5\n"), ("own.ans", "10\n")):
        (tmp_path / name).write_text(text)
    own = SourceTest("sample/1", "sample", tmp_path / "own.in", tmp_path / "own.ans")
    problem = SourceProblem("double", 2.0, CheckerSettings(), [own], [])
    double = [
        Program("times", "print(2 * int(input()))\n", "python"),
        Program("plus", "n = int(input())\nprint(n + n)\n", "python"),
        Program("shift", "print(int(input()) << 1)\n", "python"),
    ]
    proposal = infer.propose(["5\n", "5\n"], "", size_max=CONFIG.size_max)
    work = tmp_path / "work"
    work.mkdir()
    work.chmod(0o711)
    report = validate(proposal, problem, CONFIG, work, double, [])
    check = next(c for c in report.checks if c.name == "deterministic")
    assert check.passed, check.detail
    assert check.data["widened"] == ["v0 5..5 → 5..68"]
    assert "at first all 3 seeds gave the same input" in check.detail
    assert report.proposal.provenance["widened"] == ["v0 5..5 → 5..68"]
    assert report.proposal.code != proposal.code  # the widened program is the one kept
