"""A bounded CPU load for timing diagnostics: a few busy processes, started for a block and
stopped after it, so a measurement can be compared idle and beside busy neighbours (the
paper's training hosts were busy with inference, data loading and GPU traffic). Plain
Python.

Each busy process is a separate interpreter running BUSY_LOOP, not a fork of the caller:
the caller may be a Django or Celery process with threads and connections that a fork
would copy. It ends by itself soon after its parent is gone (a caller killed by SIGTERM
runs no `finally`), so no load outlives the measurement that started it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

BUSY_LOOP = (
    "import os\n"
    "parent = os.getppid()\n"
    "while os.getppid() == parent:\n"
    "    for _ in range(1_000_000): pass\n"
)
"""Pure-Python arithmetic, checking every ~20 ms that the process that started it lives."""
STOP_WAIT_S = 10.0
"""How long a busy process gets to end after SIGTERM before it is killed."""


def cores_available() -> int:
    """The cores this process may run on (its affinity, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@contextlib.contextmanager
def busy_load(processes: int) -> Iterator[list[int]]:
    """`processes` busy processes for the block (0: none); yields their process ids. Every
    one is stopped and waited for when the block ends, however it ends."""
    started: list[subprocess.Popen] = []
    try:
        for _ in range(processes):
            started.append(
                subprocess.Popen(
                    [sys.executable, "-c", BUSY_LOOP],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        yield [process.pid for process in started]
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
