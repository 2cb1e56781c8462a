"""A failure of the sandbox itself is SANDBOX_ERROR, never the program's verdict: retried
with backoff, counted, and given up only after retries.SANDBOX_ATTEMPTS starts. The failures
are real ones: a slot uid already at its process limit (execve refuses with EAGAIN, as on a
host whose uid is held by leftovers) and bwrap refusing a mount it is asked for."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from execution import retries
from execution.engine import Case, execute
from execution.isolation import SandboxError
from execution.retries import SANDBOX_ATTEMPTS, SANDBOX_ERROR, counted, run_retried
from execution.sandbox import Limits, prepare_box
from tests.conftest import wait_until
from tests.sandbox_support import end, processes_of, use_one_slot

LIMITS = Limits(cpu_seconds=1, wall_seconds=5, memory_mb=256, output_mb=1)
PY_SUM = "n = int(input())\nprint(sum(map(int, input().split())))\n"
CPP_SUM = (
    '#include <cstdio>\nint main(){int n; long long s=0, x; scanf("%d", &n);'
    'for(int i=0;i<n;i++){scanf("%lld", &x); s+=x;} printf("%lld\\n", s);}\n'
)


@pytest.fixture
def one_test(tmp_path) -> list[Case]:
    (tmp_path / "1.in").write_text("3\n1 2 3\n")
    (tmp_path / "1.ans").write_text("6\n")
    return [Case("1", tmp_path / "1.in", tmp_path / "1.ans")]


@pytest.fixture
def slot_uid(monkeypatch, tmp_path) -> int:
    return use_one_slot(monkeypatch, tmp_path / "slots")


@pytest.mark.parametrize(("source", "language"), [(PY_SUM, "python"), (CPP_SUM, "cpp")])
def test_a_slot_uid_over_its_process_limit_is_a_sandbox_error_never_a_program_verdict(
    source, language, one_test, slot_uid
):
    before = retries.PROCESS_COUNTS.errors
    with processes_of(slot_uid, LIMITS.processes + 1), counted() as counts:
        report = execute(source, language, one_test, limits=LIMITS, repeats=3)
    assert report.verdict == SANDBOX_ERROR  # not RUNTIME_ERROR, not COMPILE_ERROR
    result = report.tests[0]
    assert result.verdict == SANDBOX_ERROR and result.cpu_samples == []
    assert "exec: Resource temporarily unavailable" in result.message
    # every start was tried SANDBOX_ATTEMPTS times: the first run (the compiler's, for C++)
    # gave up, and nothing after it was started
    assert (counts.errors, counts.gave_up) == (SANDBOX_ATTEMPTS, 1)
    assert retries.PROCESS_COUNTS.errors - before >= SANDBOX_ATTEMPTS


def test_a_sandbox_error_that_clears_is_retried_and_the_run_gets_its_verdict(one_test, slot_uid):
    with processes_of(slot_uid, LIMITS.processes + 1) as sleepers, counted() as counts:
        # the host frees the uid once the first start has failed (within the backoff)
        freeing = threading.Thread(
            target=lambda: (wait_until(lambda: counts.errors >= 1, 30, "a failure"), end(sleepers))
        )
        freeing.start()
        report = execute(PY_SUM, "python", one_test, limits=LIMITS, repeats=1)
        freeing.join()
    assert report.verdict == "OK", report.tests[0].message
    assert counts.errors >= 1 and counts.gave_up == 0


def run_print_six(tmp_path: Path, **options):
    """`print(6)` run in a fresh box under run_retried (its RunResult)."""
    box = prepare_box(tmp_path / "work")
    (box / "main.py").write_text("print(6)\n")
    return run_retried(
        ["/usr/bin/python3", "/box/main.py"],
        box=box,
        limits=LIMITS,
        stdin_path=None,
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        **options,
    )


def test_bwrap_refusing_its_arguments_is_a_sandbox_error_with_its_message(tmp_path):
    with counted() as counts, pytest.raises(SandboxError, match="no report from the runner"):
        # bwrap cannot bind what is not there
        run_print_six(tmp_path, read_only=(Path("/nonexistent/input"),))
    assert (counts.errors, counts.gave_up) == (SANDBOX_ATTEMPTS, 1)
    assert "Can't find source path /nonexistent/input" in counts.last_error


def test_a_counted_block_sees_only_its_own_threads_runs(one_test, slot_uid):
    with processes_of(slot_uid, LIMITS.processes + 1), counted() as mine:
        other: dict = {}

        def elsewhere() -> None:
            with counted() as theirs:
                other["counts"] = theirs

        thread = threading.Thread(target=elsewhere)
        thread.start()
        execute(PY_SUM, "python", one_test, limits=LIMITS, repeats=1)
        thread.join()
    assert mine.errors == SANDBOX_ATTEMPTS and other["counts"].errors == 0


def test_a_dataset_build_fails_in_the_sandbox_instead_of_storing_sandbox_error_verdicts(
    tmp_path, slot_uid
):
    from problems.pipeline import build_problem
    from tests.pipeline_problems import FAST_CONFIG, sum_problem

    problem = sum_problem(tmp_path / "sum")
    with processes_of(slot_uid, Limits().processes + 1), pytest.raises(SandboxError):
        build_problem(problem, FAST_CONFIG)


def test_a_cgroup_the_launcher_cannot_join_is_a_sandbox_error_naming_the_file(
    tmp_path, monkeypatch
):
    from execution.isolation import RunCgroup, active_isolation

    if active_isolation().tree is None:
        pytest.skip("no cgroup can be made on this host: the launcher joins none")
    missing = tmp_path / "gone" / "cgroup.procs"
    monkeypatch.setattr(RunCgroup, "join_files", property(lambda self: [missing]))
    with counted() as counts, pytest.raises(SandboxError, match="no report from the runner"):
        run_print_six(tmp_path)
    assert f"codeopt launcher: open {missing}: No such file or directory" in counts.last_error


def test_a_run_starts_without_forking_the_caller(tmp_path, monkeypatch):
    """No preexec_fn: with one, subprocess forks the whole caller (a worker of several
    hundred MB pays tens of ms per run for its page tables) instead of vfork."""
    import subprocess

    seen: list[dict] = []
    real = subprocess.Popen

    def recording(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", recording)
    result = run_print_six(tmp_path)
    assert result.exit_code == 0 and (tmp_path / "out").read_text() == "6\n"
    assert seen and all(kwargs.get("preexec_fn") is None for kwargs in seen)
