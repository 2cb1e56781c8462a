"""Importing DeepMind code_contests records from JSON arrays, JSON lines and Parquet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from problems import services
from problems.importers import code_contests
from problems.models import Problem

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "code_contests"
SHAPES = ["records.json", "records.jsonl", "records.parquet"]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_imports_the_same_two_problems(shape):
    report = services.do_import_code_contests(FIXTURES / shape)
    assert sorted(report.created) == ["cc-1001-a-sum-of-two", "cc-1002-b-largest"]
    problem = Problem.objects.get(slug="cc-1001-a-sum-of-two")
    assert problem.title == "1001_A. Sum of Two"
    assert problem.time_limit_s == 2.5 and problem.memory_limit_mb == 256
    assert problem.source == "code_contests/codeforces"
    assert problem.tags == ["implementation", "math"]
    assert problem.meta["cf_rating"] == 800 and problem.meta["difficulty"] == 7
    kinds = dict(problem.tests.values_list("name", "kind"))
    assert kinds == {
        "public/000": "sample",
        "private/000": "correctness",
        "generated/000": "correctness",
    }
    assert problem.tests.get(name="generated/000").answer_text == "2000000000\n"
    solutions = {s.name: (s.language, s.verdict_label) for s in problem.solutions.all()}
    assert solutions == {
        "solutions/0000": ("python", "accepted"),
        "solutions/0001": ("cpp", "accepted"),
        "solutions/0002": ("java", "accepted"),
        "incorrect_solutions/0000": ("python", "wrong"),
    }
    # the test without an expected output is left out, and said so against its problem
    assert report.warnings == [
        ("cc-1001-a-sum-of-two", "generated_tests[1]: no expected output; test left out")
    ]
    largest = Problem.objects.get(slug="cc-1002-b-largest")
    assert largest.time_limit_s == 1.0 and largest.memory_limit_mb == Problem.DEFAULT_MEMORY_MB


def test_each_shape_skips_its_bad_record_with_a_reason_naming_it():
    reasons = {}
    for shape in SHAPES:
        report = services.do_import_code_contests(FIXTURES / shape)
        assert len(report.skipped) == 1
        reasons[shape] = report.skipped[0]
    assert reasons["records.json"] == ("records.json[2]", "(no name): name: missing or empty")
    label, reason = reasons["records.jsonl"]
    assert label == "records.jsonl:3" and reason.startswith("not valid JSON")
    label, reason = reasons["records.parquet"]
    assert label == "records.parquet[2]"
    assert (
        reason
        == "1003_C. File Input: input_file: reads 'input.txt'; only stdin/stdout is supported"
    )
    assert not Problem.objects.filter(title__contains="File Input").exists()


def test_re_importing_every_shape_updates_and_never_duplicates(tmp_path):
    folder = tmp_path / "cc"
    shutil.copytree(FIXTURES, folder, ignore=shutil.ignore_patterns("*.py"))
    first = services.do_import_code_contests(folder)
    again = services.do_import_code_contests(folder)
    assert len(first.created) == 2 and len(first.updated) == 4  # three files, same two names
    assert not again.created and len(again.updated) == 6
    assert Problem.objects.count() == 2
    assert Problem.objects.get(slug="cc-1001-a-sum-of-two").tests.count() == 3


def test_an_oversized_test_is_left_out_and_the_rest_of_the_record_imports(monkeypatch):
    monkeypatch.setattr(code_contests, "MAX_TEST_BYTES", 12)
    report = services.do_import_code_contests(FIXTURES / "records.json")
    problem = Problem.objects.get(slug="cc-1001-a-sum-of-two")
    assert "generated/000" not in set(problem.tests.values_list("name", flat=True))
    assert (
        "cc-1001-a-sum-of-two",
        "generated_tests[0]: 22 bytes; at most 12; test left out",
    ) in report.warnings


@pytest.mark.parametrize(
    "value, seconds",
    [
        ("seconds: 2\nnanos: 500000000\n", 2.5),
        ("seconds: 3\n", 3.0),
        ({"seconds": 1, "nanos": 250000000}, 1.25),
        (4, 4.0),
        (None, 2.0),
        ({"seconds": 0, "nanos": 0}, 2.0),  # code_contests' "unknown"
    ],
)
def test_time_limits_are_read_in_every_form(value, seconds):
    assert code_contests.parse_time_limit(value) == seconds


def test_a_record_with_columns_of_different_lengths_names_the_field():
    record = {
        "name": "x",
        "public_tests": {"input": ["1\n", "2\n"], "output": ["1\n"]},
    }
    with pytest.raises(ValueError, match=r"public_tests: columns of different lengths"):
        code_contests.record_to_problem(record, origin="here")


def test_the_command_imports_code_contests_and_prints_skips_and_warnings(capsys):
    call_command("import_problems", str(FIXTURES / "records.parquet"), format="code_contests")
    out = capsys.readouterr().out
    assert "2 created, 0 updated, 1 skipped, 5 tests" in out
    assert "skipped records.parquet[2]: 1003_C. File Input" in out
    assert "warning cc-1001-a-sum-of-two: generated_tests[1]: no expected output" in out
