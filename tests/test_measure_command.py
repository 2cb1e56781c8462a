"""`manage.py measure` and the package reader, on a package written here and, where the
shared real packages are present, on a real one with a custom output validator."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from workers.execution.package import PackageError, load_package

ROOT = Path(__file__).resolve().parent.parent
REALDATA = ROOT.parent / "shared" / "realdata" / "kattis"

FAST = "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\nprint(sum(nums))\n"
SLOW = (
    "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\ntotal = 0\n"
    "for i in range(len(nums)):\n    for _ in range(20):\n        total += nums[i]\n"
    "print(total // 20)\n"
)
MEDIUM = (
    "import sys\nnums = list(map(int, sys.stdin.read().split()))[1:]\ntotal = 0\n"
    "for x in nums:\n    total += x\nprint(total)\n"
)


@pytest.fixture
def package(tmp_path) -> Path:
    root = tmp_path / "sum"
    (root / "data" / "sample").mkdir(parents=True)
    (root / "data" / "secret").mkdir(parents=True)
    (root / "problem.yaml").write_text("name: Sum\nvalidation: default\n")
    (root / ".timelimit").write_text("2\n")
    (root / "data" / "sample" / "1.in").write_text("2\n1 2\n")
    (root / "data" / "sample" / "1.ans").write_text("3\n")
    for i, n in enumerate((200_000, 300_000)):
        (root / "data" / "secret" / f"{i}.in").write_text(f"{n}\n" + " ".join(["7"] * n) + "\n")
        (root / "data" / "secret" / f"{i}.ans").write_text(f"{7 * n}\n")
    accepted = root / "submissions" / "accepted"
    accepted.mkdir(parents=True)
    (accepted / "fast.py").write_text(FAST)
    (accepted / "slow.py").write_text(SLOW)
    (root / "submissions" / "wrong_answer").mkdir()
    (root / "submissions" / "wrong_answer" / "off.py").write_text("print(0)\n")
    return root


def run_measure(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "measure", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DEBUG": "1"},
    )


def test_the_package_reader_finds_tests_limits_and_solutions(package):
    problem = load_package(package)
    assert problem.name == "Sum" and problem.time_limit_s == 2.0
    assert [t.name for t in problem.tests] == ["sample/1", "secret/0", "secret/1"]
    assert problem.ranked_tests == ["secret/0", "secret/1"]
    assert [s.name for s in problem.solutions_in("accepted")] == [
        "accepted/fast.py",
        "accepted/slow.py",
    ]


def test_a_package_without_answers_is_refused_naming_the_file(package):
    (package / "data" / "secret" / "1.ans").unlink()
    with pytest.raises(PackageError, match="1.ans"):
        load_package(package)


def test_measure_ranks_a_program_between_the_references(package, tmp_path):
    program = tmp_path / "medium.py"
    program.write_text(MEDIUM)
    result = run_measure(str(program), "--problem-dir", str(package), "--repeats", "3", "--json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["verdict"] == "OK" and body["mode"] == "cpu"
    assert [t["name"] for t in body["tests"]] == ["sample/1", "secret/0", "secret/1"]
    assert all(t["verdict"] == "OK" and t["cpu_s"] > 0 and t["peak_kb"] > 0 for t in body["tests"])
    # slower than fast.py, faster than slow.py on both ranked tests
    assert body["speed_percentile"] == pytest.approx(50.0)
    assert "[3/3]" in result.stderr  # progress


def test_measure_reports_a_wrong_program_without_a_percentile(package, tmp_path):
    program = tmp_path / "wrong.py"
    program.write_text("print(1)\n")
    body = json.loads(
        run_measure(str(program), "--problem-dir", str(package), "--repeats", "1", "--json").stdout
    )
    assert body["verdict"] == "WRONG_ANSWER" and body["speed_percentile"] is None


def test_measure_names_the_bad_argument(package, tmp_path):
    result = run_measure(str(tmp_path / "missing.py"), "--problem-dir", str(package))
    assert result.returncode != 0 and "program: no file" in result.stderr
    program = tmp_path / "x.rb"
    program.write_text("puts 1")
    result = run_measure(str(program), "--problem-dir", str(package))
    assert "language: cannot tell" in result.stderr
    result = run_measure(str(tmp_path / "medium.py"), "--problem-dir", str(tmp_path))
    assert result.returncode != 0


@pytest.mark.skipif(
    not REALDATA.exists(), reason="the shared real packages are not beside this checkout"
)
def test_measure_on_a_real_package_with_a_custom_validator(tmp_path):
    """problemtools' `different`: a C++ output validator decides, run in the sandbox too."""
    problem = REALDATA / "problemtools__different"
    program = problem / "solutions" / "accepted" / "different_stdio.cc"
    result = run_measure(
        str(program),
        "--problem-dir",
        str(problem),
        "--repeats",
        "1",
        "--references",
        "wrong_answer",
        "--json",
    )
    body = json.loads(result.stdout)
    assert body["verdict"] == "OK"
    assert {r["verdict"] for r in body["references"]} == {"WRONG_ANSWER"}
