"""build_dataset against the database: what a build stores, idempotence, bad problems,
stored reference runtimes, regenerated inputs, and a build run by a real Celery worker."""

from __future__ import annotations

import gzip

import pytest
from django.core.management import call_command

from execution.fingerprint import machine_fingerprint
from execution.samples import write_sum_package
from problems import services
from problems.models import DatasetBuild, Problem, ProblemBuild, ProblemTest, ReferenceRuntime
from problems.pipeline import split_of
from tests.conftest import wait_for_status
from tests.pipeline_problems import FAST_CONFIG, MIDDLE, RANDOM_GEN

pytestmark = pytest.mark.django_db(transaction=True)


def import_sum(tmp_path, name: str = "sum", generator: str = RANDOM_GEN) -> Problem:
    root = write_sum_package(tmp_path / name)
    (root / "generators").mkdir()
    (root / "generators" / "random.py").write_text(generator)
    (root / "submissions" / "accepted" / "middle.py").write_text(MIDDLE)
    services.do_import_packages(root)
    return Problem.objects.get(slug=name)


def run_build(slugs: list[str]) -> DatasetBuild:
    config, slugs = services.check_build_request(FAST_CONFIG.as_dict(), slugs)
    build = DatasetBuild.objects.create(config=config.as_dict(), problem_slugs=slugs)
    return services.do_run_build(build.pk)


def test_a_build_stores_tests_runtimes_outcomes_and_its_funnel(tmp_path):
    problem = import_sum(tmp_path)
    build = run_build(["sum"])
    assert build.status == "done" and build.progress == 1.0 and build.executions > 20
    assert build.funnel == [
        ["candidates", 1],
        ["references verified", 1],
        ["consensus correctness tests", 1],
        ["optimization tests", 1],
        ["time-discriminative", 1],
        ["untimeable", 0],
        ["train", int(split_of("sum", FAST_CONFIG) == "train")],
        ["test", int(split_of("sum", FAST_CONFIG) == "test")],
    ]
    problem.refresh_from_db()
    assert problem.split == split_of("sum", FAST_CONFIG) and problem.discrimination > 2
    result = ProblemBuild.objects.get(build=build, problem=problem)
    assert result.kept and result.stage_reached == 5
    assert result.report["consensus"]["wrong_caught"] == ["wrong_answer/off.py"]
    generated = problem.tests.exclude(generator=None)
    assert sorted(generated.values_list("kind", flat=True)) == [
        "correctness",
        "correctness",
        "optimization",
    ]
    optimization = generated.get(kind="optimization")
    # a large input is not stored: its generator, seed and size make it again
    assert optimization.regenerate and bytes(optimization.input_gz) == b""
    assert optimization.input_bytes > 400_000 and len(optimization.input_sha256) == 64
    assert optimization.answer_bytes == len(optimization.answer_text)
    runtimes = ReferenceRuntime.objects.filter(test=optimization)
    assert runtimes.count() == 4  # fast, middle, slow and the wrong one
    assert {r.machine for r in runtimes} == {machine_fingerprint()}
    assert all(r.measured_at >= build.created_at for r in runtimes)
    slow = runtimes.get(solution__name="accepted/slow.py")
    assert slow.verdict == "OK" and len(slow.samples) == FAST_CONFIG.repeats
    assert runtimes.get(solution__name="wrong_answer/off.py").verdict == "WRONG_ANSWER"


def test_rebuilding_replaces_the_generated_tests_and_never_duplicates(tmp_path):
    problem = import_sum(tmp_path)
    run_build(["sum"])
    first = sorted(problem.tests.values_list("name", "input_sha256"))
    own_tests = problem.tests.filter(generator=None).count()
    run_build(["sum"])
    again = sorted(problem.tests.values_list("name", "input_sha256"))
    assert len(again) == len(first) == len({name for name, _ in again})
    # same seeds: every test but the optimization one identical; that one's SIZE comes from
    # timed probes (a loaded host may settle a step lower) and its seed from the SIZE
    assert [t for t in again if not t[0].startswith("opt/")] == [
        t for t in first if not t[0].startswith("opt/")
    ]
    (opt_first,) = [t for t in first if t[0].startswith("opt/")]
    (opt_again,) = [t for t in again if t[0].startswith("opt/")]
    assert opt_again == opt_first or opt_again[0] != opt_first[0]
    assert ReferenceRuntime.objects.filter(purpose="build").count() == 4
    # stage 1: one run of each of the 3 correct references on each of the package's tests
    assert ReferenceRuntime.objects.filter(purpose="verify").count() == 3 * own_tests
    assert ProblemBuild.objects.filter(problem=problem).count() == 2  # one per build


def test_a_regenerated_input_is_made_again_and_checked(tmp_path):
    problem = import_sum(tmp_path)
    run_build(["sum"])
    test = problem.tests.get(kind="optimization")
    input_path, answer_path = services.materialize_test(test, tmp_path)
    assert len(input_path.read_bytes()) == test.input_bytes
    assert answer_path.read_bytes() == gzip.decompress(bytes(test.answer_gz))
    problem.generators.filter(name="random").update(code=RANDOM_GEN.replace("-9, 9", "-8, 8"))
    test = ProblemTest.objects.select_related("generator").get(pk=test.pk)
    with pytest.raises(ValueError, match="the generator no longer reproduces the input"):
        services.materialize_test(test, tmp_path)


def test_a_problem_whose_references_all_crash_is_reported_and_nothing_is_half_stored(tmp_path):
    import_sum(tmp_path)
    crashing = import_sum(tmp_path, "crashes")
    crashing.solutions.filter(verdict_label="accepted").update(code="raise SystemExit(1)\n")
    build = run_build([])
    outcome = ProblemBuild.objects.get(build=build, problem=crashing)
    assert not outcome.kept and outcome.stage_reached == 0
    assert "accepted/fast.py: RUNTIME_ERROR on secret/0" in outcome.reason
    assert not crashing.tests.exclude(generator=None).exists()
    assert not ReferenceRuntime.objects.filter(test__problem=crashing).exists()
    crashing.refresh_from_db()
    assert crashing.split == "unassigned"
    assert dict(build.funnel)["candidates"] == 2 and dict(build.funnel)["references verified"] == 1


def test_the_command_prints_each_problem_and_the_funnel(tmp_path, capsys):
    import_sum(tmp_path)
    settings = [f"{k}={v}" for k, v in FAST_CONFIG.as_dict().items() if k != "correctness_sizes"]
    call_command("build_dataset", "--problems", "sum", *[f"--set={s}" for s in settings])
    out = capsys.readouterr().out
    assert "sum: kept" in out and "time-discriminative          1" in out
    assert "  generators hand: 1 proposed, 1 valid; problems with optimization tests from " in out
    assert "executions in" in out
    with pytest.raises(Exception, match="problems: no problem nothing"):
        call_command("build_dataset", "--problems", "nothing")
    with pytest.raises(Exception, match="slow_target_s: 'x' is not a number"):
        call_command("build_dataset", "--set", "slow_target_s=x")


def test_a_real_worker_runs_a_build_queued_from_the_command(tmp_path, celery_worker_process):
    import_sum(tmp_path)
    config, slugs = services.check_build_request(FAST_CONFIG.as_dict(), ["sum"])
    build = services.do_create_build(config, slugs, started_by="test")

    wait_for_status(
        celery_worker_process, build, ("done", "failed"), 240, "the dataset build to end"
    )
    assert build.status == "done", build.error
    assert dict(build.funnel)["time-discriminative"] == 1
    assert ProblemTest.objects.filter(problem__slug="sum", kind="optimization").exists()


def test_re_importing_a_problem_keeps_the_tests_its_build_made(tmp_path):
    problem = import_sum(tmp_path)
    run_build(["sum"])
    generated = sorted(problem.tests.exclude(generator=None).values_list("name", flat=True))
    services.do_import_packages(tmp_path / "sum")
    assert sorted(problem.tests.exclude(generator=None).values_list("name", flat=True)) == generated
    # the optimization-test runtimes stay; the single runs on the re-imported tests go
    assert ReferenceRuntime.objects.filter(test__problem=problem, purpose="build").count() == 4
    assert not ReferenceRuntime.objects.filter(test__problem=problem, purpose="verify").exists()
    (tmp_path / "sum" / "generators" / "random.py").unlink()  # its generator goes: its tests go
    services.do_import_packages(tmp_path / "sum")
    assert not problem.tests.exclude(generator=None).exists()
    assert problem.tests.count() == 3  # the package's own
