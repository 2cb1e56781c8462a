"""Starting and waiting for the project's processes: a Celery worker's command line, a
condition polled with a deadline, whether a loopback port accepts connections yet.

Plain Python, no Django: shared by the cluster harness (scripts/cluster.py, which the
benchmarks drive) and the tests' fixtures (tests/conftest.py).
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], object], timeout: float, what: str, interval=0.1):
    """Poll `predicate` until it returns a truthy value; TimeoutError naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port: int) -> bool:
    """Whether something on 127.0.0.1:`port` accepts a connection now."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def celery_worker_argv(*options: str, python: str = sys.executable) -> list[str]:
    """The command line of a Celery worker of this project, logging at info (what the
    fixtures and the harness wait for: its "ready." line), with `options` (queues, pool...)."""
    return [python, "-m", "celery", "-A", "codeopt_site", "worker", "-l", "info", *options]
