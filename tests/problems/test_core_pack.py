"""The built-in pack (problems/packs/core): every problem is complete, its generators are
deterministic, every accepted solution passes every test and every wrong one is caught."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from execution.engine import Program, measure
from execution.package import load_package
from execution.sandbox import Limits
from judges.categories import CATEGORIES

PACK = Path(__file__).resolve().parents[2] / "problems" / "packs" / "core"
PROBLEMS = sorted(p.parent.name for p in PACK.glob("*/problem.yaml"))
SPEEDUP_KINDS = set(CATEGORIES) - {"none"}  # the judges' categories; "none" is no speedup


def test_the_pack_covers_every_kind_of_speedup():
    import yaml

    kinds = set()
    for slug in PROBLEMS:
        kinds |= set(yaml.safe_load((PACK / slug / "problem.yaml").read_text()).get("tags", []))
    assert PROBLEMS, "the built-in pack is empty"
    assert SPEEDUP_KINDS <= kinds, SPEEDUP_KINDS - kinds


def test_the_pack_has_thirty_problems_ten_of_them_with_two_cpp_solutions():
    assert len(PROBLEMS) >= 30
    with_cpp = [
        slug
        for slug in PROBLEMS
        if len(list((PACK / slug / "submissions" / "accepted").glob("*.cpp"))) >= 2
    ]
    assert len(with_cpp) >= 10, with_cpp


@pytest.mark.parametrize("slug", PROBLEMS)
def test_a_problem_is_complete(slug):
    root = PACK / slug
    package = load_package(root)
    assert (root / "problem_statement" / "problem.en.md").read_text().strip()
    assert {"random.py", "worst.py"} <= {p.name for p in (root / "generators").glob("*.py")}
    accepted = package.solutions_in("accepted")
    assert len([s for s in accepted if s.language == "python"]) >= 6
    assert package.solutions_in("wrong_answer")
    assert len(package.tests) >= 4


@pytest.mark.parametrize("slug", PROBLEMS)
def test_the_generators_are_deterministic(slug):
    for generator in sorted((PACK / slug / "generators").glob("*.py")):
        runs = [
            subprocess.run(
                [
                    sys.executable,
                    "-P",
                    str(generator),
                    "7",
                    "3",
                ],  # -P: random.py must not shadow random
                capture_output=True,
                timeout=30,
                check=True,
            ).stdout
            for _ in range(2)
        ]
        assert runs[0] == runs[1] and runs[0].strip(), generator.name


def _verdicts(slug: str) -> dict[str, tuple[str, str, list]]:
    """{solution: (its verdict folder, the verdict measured, the per-test results)}."""
    package = load_package(PACK / slug)
    programs = [Program(s.name, s.path.read_text(), s.language) for s in package.solutions]
    limits = Limits(cpu_seconds=4 * package.time_limit_s, wall_seconds=8 * package.time_limit_s)
    reports = measure(
        programs,
        package.tests,
        limits=limits,
        repeats=1,
        checker=package.checker,
        stop_at_failure=True,  # a wrong solution is caught by its first failed test
    )
    return {
        s.name: (s.verdict_dir, reports[s.name].verdict, reports[s.name].tests)
        for s in package.solutions
    }


@pytest.fixture(scope="module")
def pack_verdicts() -> dict[str, dict]:
    """Every problem's solutions run on its tests, problems side by side on the host's cores
    (each measurement pins a core of its own): correctness only, no timing is compared."""
    with ThreadPoolExecutor(max_workers=max(1, len(os.sched_getaffinity(0)))) as pool:
        return dict(zip(PROBLEMS, pool.map(_verdicts, PROBLEMS), strict=True))


@pytest.mark.parametrize("slug", PROBLEMS)
def test_accepted_solutions_pass_and_wrong_ones_are_caught(slug, pack_verdicts):
    for name, (folder, verdict, tests) in pack_verdicts[slug].items():
        if folder == "accepted":
            assert verdict == "OK", (name, tests)
        elif folder == "wrong_answer":
            assert verdict == "WRONG_ANSWER", name
