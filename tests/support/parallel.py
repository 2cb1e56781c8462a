"""Each pytest-xdist worker gets backends of its own (loaded with `-p tests.support.parallel`,
before Django reads its settings).

`scripts/test.sh` runs each pass on two workers. Their session fixtures start a Celery
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


def split_backends() -> None:
    if not WORKER:
        return
    index = int(WORKER.removeprefix("gw"))
    root = Path(os.environ.get("CODEOPT_VAR_DIR") or Path(__file__).parents[2] / "var")
    os.environ["CODEOPT_VAR_DIR"] = str(root / WORKER)
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if broker.startswith("redis"):
        os.environ["CELERY_BROKER_URL"] = _own_redis_db(broker, index)
    if os.environ.get("REDIS_URL"):
        prefix = os.environ.get("REDIS_CHANNEL_PREFIX") or "asgi"
        os.environ["REDIS_CHANNEL_PREFIX"] = f"{prefix}-{WORKER}"


split_backends()
