"""One core for a measurement: the calling thread (and so every sandboxed run it starts)
pinned to a core that no other measurement on this host holds. Plain Python.

Why: on the project's shared 2-vCPU host, CPU time of the same run varied by a CV of 20-45%
when runs could migrate between cores and by 1-3% (lowest of 5) when pinned
(docs/benchmarks.md, rank jitter). A timing worker started with CODEOPT_PIN_CORES=1 is
already pinned to one core per process; then this keeps that core.

A core is claimed with an advisory lock on `CODEOPT_CORE_LOCK_DIR/core-N.lock` (default
/tmp/codeopt-cores), so separate processes on one host pick different cores while there are
free ones; when every core is held, one is shared, chosen by process id (never a wait).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

_ALLOWED = frozenset(os.sched_getaffinity(0))  # the process's cores when it started
_held: set[int] = set()  # cores this process holds the lock of


def _lock_dir() -> Path:
    folder = Path(os.environ.get("CODEOPT_CORE_LOCK_DIR", "/tmp/codeopt-cores"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def pinned_core() -> Iterator[int | None]:
    """Pin the calling thread to one core for the block; yields the core (None where
    affinity cannot be set). Restores the thread's previous affinity afterwards."""
    try:
        before = os.sched_getaffinity(0)
    except OSError:
        yield None
        return
    if len(before) == 1 and not before & _held:  # pinned by its worker: keep that core
        yield next(iter(before))
        return
    # a thread started inside another measurement inherits its core: choose among all
    cores = sorted(before if len(before) > 1 else _ALLOWED)
    handle, core = None, None
    folder = _lock_dir()
    for candidate in cores:
        attempt = open(folder / f"core-{candidate}.lock", "a")  # noqa: SIM115
        try:
            fcntl.flock(attempt, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            attempt.close()
            continue
        handle, core = attempt, candidate
        break
    if core is None:  # all held: share one, spread by process id
        core = cores[os.getpid() % len(cores)]
    try:
        os.sched_setaffinity(0, {core})
        if handle is not None:
            _held.add(core)
        yield core
    finally:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, before)
        if handle is not None:
            _held.discard(core)
            handle.close()
