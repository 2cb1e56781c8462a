"""`manage.py measure` and the package reader, on a package written here and, where the
shared real packages are present, on a real one with a custom output validator."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from execution.package import PackageError, load_package
from execution.samples import MIDDLE

ROOT = Path(__file__).resolve().parents[2]
REALDATA = ROOT.parent / "shared" / "realdata" / "kattis"


def run_measure(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "measure", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DEBUG": "1"},
    )


def test_the_package_reader_finds_tests_limits_and_solutions(sum_package):
    package = sum_package
    problem = load_package(package)
    assert problem.name == "Sum" and problem.time_limit_s == 2.0
    assert [t.name for t in problem.tests] == ["sample/1", "secret/0", "secret/1"]
    assert problem.ranked_tests == ["secret/0", "secret/1"]
    assert [s.name for s in problem.solutions_in("accepted")] == [
        "accepted/fast.py",
        "accepted/slow.py",
    ]


def test_a_package_without_answers_is_refused_naming_the_file(sum_package):
    package = sum_package
    (package / "data" / "secret" / "1.ans").unlink()
    with pytest.raises(PackageError, match="1.ans"):
        load_package(package)


def test_measure_ranks_a_program_between_the_references(sum_package, tmp_path):
    package = sum_package
    program = tmp_path / "middle.py"
    program.write_text(MIDDLE)  # 2x from each reference: the order holds on a loaded host
    result = run_measure(str(program), "--problem-dir", str(package), "--repeats", "3", "--json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["verdict"] == "OK" and body["mode"] == "cpu"
    assert [t["name"] for t in body["tests"]] == ["sample/1", "secret/0", "secret/1"]
    assert all(t["verdict"] == "OK" and t["cpu_s"] > 0 and t["peak_kb"] > 0 for t in body["tests"])
    # slower than fast.py, faster than slow.py on both ranked tests
    assert body["speed_percentile"] == pytest.approx(50.0)
    assert "[3/3]" in result.stderr  # progress


def test_measure_reports_a_wrong_program_without_a_percentile(sum_package, tmp_path):
    package = sum_package
    program = tmp_path / "wrong.py"
    program.write_text("print(1)\n")
    body = json.loads(
        run_measure(str(program), "--problem-dir", str(package), "--repeats", "1", "--json").stdout
    )
    assert body["verdict"] == "WRONG_ANSWER" and body["speed_percentile"] is None


def test_measure_names_the_bad_argument(sum_package, tmp_path):
    package = sum_package
    result = run_measure(str(tmp_path / "missing.py"), "--problem-dir", str(package))
    assert result.returncode != 0 and "program: no file" in result.stderr
    program = tmp_path / "x.rb"
    program.write_text("puts 1")
    result = run_measure(str(program), "--problem-dir", str(package))
    assert "language: cannot tell" in result.stderr
    result = run_measure(str(tmp_path / "middle.py"), "--problem-dir", str(tmp_path))
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
