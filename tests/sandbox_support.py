"""Helpers of the sandbox tests: what this test process's runs left behind, which of its
runs are alive, and a slot uid made to be over its process limit (a real set-up failure)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

from execution.isolation import CGROUP_PREFIX, active_isolation


def _pool_processes() -> list[tuple[int, int]]:
    """(pid, uid) of the live processes of any slot uid of the pool (zombies are dead)."""
    uids = ",".join(str(uid) for uid in active_isolation().pool.uids())
    out = subprocess.run(
        ["ps", "-u", uids, "-o", "pid=,uid=,stat="], capture_output=True, text=True
    ).stdout
    rows = (line.split() for line in out.splitlines())
    return [(int(pid), int(uid)) for pid, uid, state in rows if not state.startswith("Z")]


def _descends_from_me(pid: int) -> bool:
    me = os.getpid()
    while pid > 1:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:  # ended meanwhile
            return False
        pid = int(next(x for x in status.splitlines() if x.startswith("PPid:")).split()[1])
        if pid == me:
            return True
    return False


def sandbox_processes() -> list[str]:
    """What this test process's runs left: their cgroups (removable only once empty) and
    live processes of a slot uid that descend from it. Other sessions on the host run
    sandboxes as slot uids too, so a slot uid alone does not say the process is ours."""
    isolation = active_isolation()
    parents = isolation.tree.parents() if isolation.tree is not None else []
    ours = f"{CGROUP_PREFIX}{os.getpid()}-"
    left = [str(p) for parent in parents for p in parent.glob(ours + "*")]
    left += [f"process {pid}" for pid, _ in _pool_processes() if _descends_from_me(pid)]
    return left


def running_uids() -> set[int]:
    """Slot uids with a live program started by this test process."""
    return {uid for pid, uid in _pool_processes() if _descends_from_me(pid)}


def use_one_slot(monkeypatch, lock_dir: Path, uid: int = 63900) -> int:
    """The sandbox's pool reduced to one slot uid nobody else uses; returns it."""
    monkeypatch.setenv("CODEOPT_SANDBOX_UID_BASE", str(uid))
    monkeypatch.setenv("CODEOPT_SANDBOX_UID_SLOTS", "1")
    monkeypatch.setenv("CODEOPT_SANDBOX_LOCK_DIR", str(lock_dir))
    assert list(active_isolation().pool.uids()) == [uid]
    return uid


@contextlib.contextmanager
def processes_of(uid: int, count: int) -> Iterator[list[subprocess.Popen]]:
    """`count` sleeping processes of `uid`: a slot uid with RLIMIT_NPROC below `count` can
    then start nothing (execve fails with EAGAIN: the kernel refuses a uid that is already
    over its limit), as when a host's uid is held by leftovers."""
    sleepers = []
    try:
        for _ in range(count):
            sleepers.append(subprocess.Popen(["/bin/sleep", "600"], user=uid, group=uid))
        yield sleepers
    finally:
        end(sleepers)


def end(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait()
