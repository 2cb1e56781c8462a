"""Importing problem packages: idempotent, bad packages skipped with a reason, nothing half
stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from execution.samples import write_sum_package
from problems import services
from problems.importers import kattis
from problems.models import Problem, ProblemTest, ReferenceSolution

pytestmark = pytest.mark.django_db

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "kattis"


@pytest.fixture
def packages(tmp_path) -> Path:
    root = tmp_path / "packs"
    write_sum_package(root / "sum")
    write_sum_package(root / "sum-two")
    return root


def test_packages_import_with_tests_solutions_and_generators(packages):
    (packages / "sum" / "generators").mkdir()
    (packages / "sum" / "generators" / "random.py").write_text("print(1)\n")
    report = services.do_import_packages(packages)
    assert sorted(report.created) == ["sum", "sum-two"] and not report.skipped
    problem = Problem.objects.get(slug="sum")
    assert problem.title == "Sum" and problem.time_limit_s == 2.0
    assert problem.tests.count() == 3 and problem.tests.filter(kind="sample").count() == 1
    secret = problem.tests.get(name="secret/0")
    assert secret.input_bytes == len((packages / "sum/data/secret/0.in").read_bytes())
    assert secret.answer_bytes == len("1400000\n")
    assert (
        secret.answer_text == "1400000\n" and len(bytes(secret.input_gz)) < secret.input_bytes / 5
    )
    labels = dict(problem.solutions.values_list("name", "verdict_label"))
    assert labels == {
        "accepted/fast.py": "accepted",
        "accepted/slow.py": "accepted",
        "wrong_answer/off.py": "wrong",
    }
    assert list(problem.generators.values_list("name", flat=True)) == ["random"]


def test_re_importing_updates_and_never_duplicates(packages):
    services.do_import_packages(packages)
    (packages / "sum" / "data" / "secret" / "1.in").unlink()
    (packages / "sum" / "data" / "secret" / "1.ans").unlink()
    (packages / "sum" / "problem.yaml").write_text("name: Sum again\n")
    report = services.do_import_packages(packages)
    assert sorted(report.updated) == ["sum", "sum-two"] and not report.created
    assert Problem.objects.count() == 2
    assert Problem.objects.get(slug="sum").title == "Sum again"
    assert ProblemTest.objects.filter(problem__slug="sum").count() == 2  # the removed test went


def test_a_bad_package_is_skipped_with_its_reason_and_the_rest_imports(packages):
    (packages / "sum" / "problem.yaml").write_text("name: [unclosed\n")
    report = services.do_import_packages(packages)
    assert report.created == ["sum-two"]
    assert len(report.skipped) == 1 and report.skipped[0][1].startswith("sum/problem.yaml: ")
    assert not Problem.objects.filter(slug="sum").exists()


def test_a_test_without_its_answer_is_left_out_and_reported_against_its_problem(packages):
    (packages / "sum" / "data" / "secret" / "0.ans").unlink()
    report = services.do_import_packages(packages)
    assert sorted(report.created) == ["sum", "sum-two"] and not report.skipped
    assert report.warnings == [("sum", "test secret/0: no expected output (.ans); test left out")]
    assert not ProblemTest.objects.filter(problem__slug="sum", name="secret/0").exists()


def test_an_oversized_test_is_left_out_and_reported_against_its_problem(packages, monkeypatch):
    big = (packages / "sum" / "data" / "secret" / "1.in").stat().st_size  # the largest
    monkeypatch.setattr(kattis, "MAX_TEST_BYTES", big - 1)
    report = services.do_import_packages(packages / "sum")
    assert report.created == ["sum"] and not report.skipped
    assert report.warnings == [
        ("sum", f"test secret/1: {big} bytes; at most {big - 1}; test left out")
    ]
    assert set(ProblemTest.objects.values_list("name", flat=True)) == {"sample/1", "secret/0"}


def test_a_package_whose_every_test_is_oversized_is_skipped_whole(packages, monkeypatch):
    monkeypatch.setattr(kattis, "MAX_TEST_BYTES", 1)
    report = services.do_import_packages(packages / "sum")
    assert report.skipped == [("sum", "sum: no test left to import")]
    assert not Problem.objects.exists() and not ReferenceSolution.objects.exists()


def test_the_command_reports_and_names_a_missing_path(packages, capsys, tmp_path):
    call_command("import_problems", str(packages))
    assert "2 created, 0 updated, 0 skipped, 6 tests" in capsys.readouterr().out
    with pytest.raises(Exception, match="path:"):
        call_command("import_problems", str(tmp_path / "nothing"))


@pytest.mark.skipif(
    not REALDATA.exists(), reason="the shared real packages are not beside this checkout"
)
def test_the_shared_real_packages_import():
    report = services.do_import_packages(REALDATA)
    assert len(report.created) == 11 and not report.skipped
    different = Problem.objects.get(slug="problemtools-different")
    assert "accept" in different.validator_source  # the C++ validator, stored for the workers
    assert different.solutions.filter(verdict_label="too_slow").exists()
    flags = Problem.objects.exclude(checker__float_absolute_tolerance=None)
    assert flags.count() == 2  # the two packages with float_tolerance
