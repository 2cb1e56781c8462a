"""Each pytest-xdist worker gets backends of its own (`scripts/test.sh` loads this with
`-p tests.support.parallel`, before Django reads its settings; `python -m pytest -n 2 -p
tests.support.parallel` does the same by hand).

`scripts/test.sh` runs each pass on three workers. Their session fixtures start a Celery
worker and a daphne each, so what those processes share must be split: the var folder (the
filesystem broker's queue, spools, checkpoints and the SQLite test database), the Redis
broker's database (a worker's `--purge` would empty the other's queue) and the channel
layer's key prefix. PostgreSQL test databases are suffixed per worker by pytest-django.
The settings read these variables, and the processes a test starts inherit them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ...; "" without xdist


def _own_redis_db(url: str, index: int) -> str:
    """redis://host:port/N -> the same server, database N + 2·index (N + 1 stays free for
    a neighbour's second database)."""
    match = re.fullmatch(r"(rediss?://[^/]+)/(\d+)", url)
    if not match:
        raise RuntimeError(f"a parallel test run needs redis://host:port/N, not {url!r}")
    return f"{match[1]}/{int(match[2]) + 2 * index}"


def split_backends(environ=os.environ, worker: str = WORKER) -> None:
    """Rewrite `environ` for the xdist worker `worker` (nothing without one)."""
    if not worker:
        return
    index = int(worker.removeprefix("gw"))
    root = Path(environ.get("CODEOPT_VAR_DIR") or Path(__file__).parents[2] / "var")
    environ["CODEOPT_VAR_DIR"] = str(root / worker)
    broker = environ.get("CELERY_BROKER_URL", "")
    if broker.startswith("redis"):
        environ["CELERY_BROKER_URL"] = _own_redis_db(broker, index)
    if environ.get("REDIS_URL"):
        prefix = environ.get("REDIS_CHANNEL_PREFIX") or "asgi"
        environ["REDIS_CHANNEL_PREFIX"] = f"{prefix}-{worker}"


split_backends()
