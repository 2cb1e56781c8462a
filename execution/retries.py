"""A failure of the sandbox itself is never a verdict about the program: each run is retried
with backoff a bounded number of times, and every failure is counted. Plain Python.

Counted twice: in a process-wide counter (`PROCESS_COUNTS`, what this process has seen
since it started) and in every `counted()` block open on the calling thread (what one job
saw: the job stores it with its result).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from execution.isolation import SandboxError
from execution.sandbox import RunResult, run_sandboxed

SANDBOX_ERROR = "SANDBOX_ERROR"
SANDBOX_ATTEMPTS = 3
"""Starts of one run before it is given up as SANDBOX_ERROR (a slot's leftover processes, a
fork refused by a full host and a cgroup not yet freed clear within a second or two)."""
SANDBOX_BACKOFF_S = 0.25
"""Wait before the second start; doubled before each later one (0.25 s, 0.5 s)."""


@dataclass(eq=False)  # counted() blocks are told apart by identity, not by their counts
class SandboxCounts:
    errors: int = 0  # starts that failed in the sandbox (retried or not)
    gave_up: int = 0  # runs that were still failing after SANDBOX_ATTEMPTS: SANDBOX_ERROR
    last_error: str = ""

    def as_dict(self) -> dict:
        return {"errors": self.errors, "gave_up": self.gave_up, "last_error": self.last_error}


PROCESS_COUNTS = SandboxCounts()
_lock = threading.Lock()
_open = threading.local()  # the counted() blocks of this thread, innermost last


@contextmanager
def counted() -> Iterator[SandboxCounts]:
    """Counts of the sandbox errors of the runs started by this thread inside the block."""
    counts = SandboxCounts()
    stack = _open.__dict__.setdefault("stack", [])
    stack.append(counts)
    try:
        yield counts
    finally:
        stack.remove(counts)


def _count(error: str, gave_up: bool) -> None:
    with _lock:
        for counts in (PROCESS_COUNTS, *getattr(_open, "stack", [])):
            counts.errors += 1
            counts.gave_up += gave_up
            counts.last_error = error[:500]


def run_retried(argv: list[str], **options) -> RunResult:
    """`run_sandboxed(argv, **options)`, started again after a sandbox failure, at most
    SANDBOX_ATTEMPTS times; the last SandboxError is raised (the caller's verdict is then
    SANDBOX_ERROR). The run's files are opened afresh by each start."""
    delay = SANDBOX_BACKOFF_S
    for attempt in range(1, SANDBOX_ATTEMPTS + 1):
        try:
            return run_sandboxed(argv, **options)
        except SandboxError as exc:
            last = attempt == SANDBOX_ATTEMPTS
            _count(str(exc), gave_up=last)
            if last:
                raise
        time.sleep(delay)  # backoff: whatever failed on the host gets a moment to clear
        delay *= 2
    raise AssertionError("unreachable")
