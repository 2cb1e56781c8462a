"""The cgroup v2 path, against a temporary directory laid out like a delegated cgroup v2
subtree. That filesystem is the protocol boundary between the kernel and the sandbox (files
read and written by name: cgroup.controllers, cgroup.subtree_control, pids.max, memory.max,
cgroup.procs, cgroup.kill, cpu.stat, memory.peak, memory.events), so plain files stand in
for the kernel here: this host has no v2 tree to delegate (its pids and memory controllers
are on v1 hierarchies, tested for real in test_sandbox_isolation.py).

What plain files cannot do is not tested here: enforce a limit, fill in the figures by
themselves (the tests write what the kernel would), and let a directory that holds files be
removed (the kernel removes a cgroup's interface files with it).
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from execution.isolation import (
    CGROUP_PREFIX,
    CgroupUsage,
    CgroupV2Tree,
    IsolationSettings,
    SandboxUnavailable,
    detect,
)
from execution.sandbox import Limits, prepare_box, run_sandboxed
from tests.conftest import wait_until

MIB = 1024 * 1024


@pytest.fixture
def delegated(tmp_path) -> Path:
    """A delegated v2 directory as systemd's Delegate=yes leaves it: controllers available,
    none enabled for children yet, no process in it."""
    root = tmp_path / "codeopt-sandbox.slice"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids rdma misc\n")
    (root / "cgroup.subtree_control").write_text("")
    (root / "cgroup.procs").write_text("")
    return root


def test_a_delegated_v2_root_is_used_and_its_children_get_pids_and_memory(delegated):
    isolation = detect(IsolationSettings(cgroup_root=delegated))
    assert isolation.kind == "cgroup-v2"
    assert isolation.describe()["cgroup_root"] == str(delegated)
    assert (delegated / "cgroup.subtree_control").read_text().split() == ["+pids", "+memory"]


def test_a_v2_root_that_already_delegates_both_controllers_is_left_as_it_is(delegated):
    (delegated / "cgroup.subtree_control").write_text("cpu memory pids\n")
    assert detect(IsolationSettings(cgroup_root=delegated)).kind == "cgroup-v2"
    assert (delegated / "cgroup.subtree_control").read_text() == "cpu memory pids\n"


def test_a_v2_root_without_the_memory_controller_is_not_used_and_says_why(delegated):
    (delegated / "cgroup.controllers").write_text("cpu pids\n")
    fallback = detect(IsolationSettings(cgroup_root=delegated))
    assert fallback.kind != "cgroup-v2"
    assert any("memory not available" in why for why in fallback.why)
    with pytest.raises(SandboxUnavailable, match="memory not available"):
        detect(IsolationSettings(mechanism="cgroup-v2", cgroup_root=delegated))


def test_a_run_cgroup_gets_its_budgets_and_reads_what_the_kernel_wrote_at_the_end(delegated):
    run = CgroupV2Tree(delegated).create(processes=67, memory_bytes=256 * MIB)
    path = run.dirs[0]
    assert path.parent == delegated and path.name.startswith(CGROUP_PREFIX)
    assert (path / "pids.max").read_text() == "67"
    assert (path / "memory.max").read_text() == str(256 * MIB)
    assert run.join_files == [path / "cgroup.procs"]
    # the kernel's side at the end of a run whose memory limit was reached
    (path / "cpu.stat").write_text("usage_usec 1534000\nuser_usec 1200000\nsystem_usec 334000\n")
    (path / "memory.peak").write_text(f"{256 * MIB}\n")
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n")
    assert run.usage() == CgroupUsage(cpu_s=1.534, peak_bytes=256 * MIB, oom_killed=True)


def test_a_kernel_without_memory_peak_gives_no_peak_and_no_oom_without_a_kill(delegated):
    run = CgroupV2Tree(delegated).create(processes=67, memory_bytes=256 * MIB)
    path = run.dirs[0]
    (path / "cpu.stat").write_text("usage_usec 20000\n")
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 0\noom_kill 0\n")
    assert run.usage() == CgroupUsage(cpu_s=0.02, peak_bytes=None, oom_killed=False)


def test_what_is_left_in_a_run_cgroup_is_killed_when_it_is_removed(delegated):
    run = CgroupV2Tree(delegated).create(processes=67, memory_bytes=256 * MIB)
    path = run.dirs[0]
    leftover = subprocess.Popen(["/bin/sleep", "600"])
    try:
        (path / "cgroup.procs").write_text(f"{leftover.pid}\n")
        (path / "cgroup.kill").write_text("0")
        problems = run.remove()
        assert leftover.wait(timeout=10) == -signal.SIGKILL
    finally:
        if leftover.poll() is None:
            leftover.kill()
            leftover.wait()
    assert (path / "cgroup.kill").read_text() == "1"  # the whole tree at once (Linux 5.14+)
    assert problems and "not empty" in problems[0].lower()  # plain files: see the docstring


def test_a_whole_run_joins_its_v2_cgroup_before_bwrap_execs(delegated, monkeypatch, tmp_path):
    monkeypatch.setenv("CODEOPT_SANDBOX_ISOLATION", "cgroup-v2")
    monkeypatch.setenv("CODEOPT_CGROUP_ROOT", str(delegated))
    box = prepare_box(tmp_path / "work")
    (box / "main.py").write_text("print(6)\n")
    result = run_sandboxed(
        ["/usr/bin/python3", "/box/main.py"],
        box=box,
        limits=Limits(cpu_seconds=2, wall_seconds=10, memory_mb=256),
        stdin_path=None,
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
    )
    assert result.isolation == "cgroup-v2" and result.exit_code == 0
    assert (tmp_path / "out").read_text() == "6\n"
    assert result.memory_limit_hit is False  # read from the cgroup: no oom_kill there
    (run,) = delegated.glob(f"{CGROUP_PREFIX}*")
    assert (run / "pids.max").read_text() == str(64 + 3)
    joined = int((run / "cgroup.procs").read_text())  # bwrap's pid, written before its exec
    wait_until(lambda: not Path(f"/proc/{joined}").exists(), 10, "the run's process to end")
