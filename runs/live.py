"""Live messages across processes when the channel layer is in-process (no REDIS_URL).

An in-process layer reaches only the consumers of the process that sends: a Celery worker
training a run, or a script calling the ingest service, would broadcast to nobody. So while
the layer is in-process, every process that broadcasts also keeps the message for a minute
in the database, the one thing all processes share (`runs.models.LiveMessage`, written by
`runs.broadcasts`), and each web process with viewers reads the new messages of the runs they
watch every POLL_S and relays them into its own layer. A process relays its own messages at
once, as before, and skips them in the table, so each message reaches a viewer once. With
Redis, a worker's group_send reaches every web process directly and nothing here runs.

One `DatabaseTail` per event loop (a web process has one) serves all its viewers: the
database sees one query per POLL_S, however many runs and viewers are open.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections import Counter
from datetime import datetime, timedelta

from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.utils import timezone

from runs.models import LiveMessage

logger = logging.getLogger(__name__)

POLL_S = 0.2
"""Seconds between two reads of the table by a web process: a message written by another
process waits POLL_S / 2 on average, well inside the 1 s the run page promises."""

LOOKBACK_S = 10.0
"""A message is looked for this long after it was written. Rows are numbered when inserted,
not when committed, so on PostgreSQL a lower id can appear after a higher one: the tail reads
by time and remembers what it relayed, instead of following the highest id."""

RETENTION_S = 60.0
"""Rows older than this are deleted by the writers (past LOOKBACK_S nobody reads them)."""

_PROCESS_TOKEN = uuid.uuid4().hex[:16]


def run_group(run_id: int) -> str:
    """The channel-layer group of a run's viewers."""
    return f"run.{run_id}"


def origin() -> str:
    """This process's name in LiveMessage.origin. The pid is read each time: a process forked
    after import (a Celery or gunicorn child) is a process of its own."""
    return f"{_PROCESS_TOKEN}:{os.getpid()}"


def through_database(layer) -> bool:
    """True when the channel layer reaches this process only, so that messages for viewers
    elsewhere go through the database."""
    return isinstance(layer, InMemoryChannelLayer)


class DatabaseTail:
    """Relays the LiveMessage rows other processes write for the watched runs into this
    process's channel layer (group `run_group(run_id)`)."""

    def __init__(self, layer):
        self.layer = layer
        self.viewers: Counter[int] = Counter()
        self.relayed: dict[int, datetime] = {}  # row id -> its created_at, within LOOKBACK_S
        self.task: asyncio.Task | None = None

    async def watch(self, run_id: int) -> None:
        first = not self.viewers[run_id]
        self.viewers[run_id] += 1  # before any await: an unwatch meanwhile must see it
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._run())
        if first:
            # What was written before the first viewer came is in the page's first read. The
            # task's first read comes POLL_S later, on the same database thread, so after this.
            await database_sync_to_async(self._skip_existing)(run_id)

    def unwatch(self, run_id: int) -> bool:
        """Drop one viewer of the run; True when the tail has none left (it stops)."""
        self.viewers[run_id] -= 1
        if self.viewers[run_id] <= 0:
            del self.viewers[run_id]
        if self.viewers or self.task is None:
            return not self.viewers
        self.task.cancel()
        self.task = None
        return True

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(POLL_S)
            try:
                rows = await database_sync_to_async(self.new_rows)(list(self.viewers))
            except Exception:  # a locked or restarting database: try again next time
                logger.exception("reading live messages")
                continue
            for run_id, text in rows:
                await self.layer.group_send(
                    run_group(run_id), {"type": "live.message", "text": text}
                )

    def _recent(self, run_ids: list[int]) -> list[tuple[int, datetime]]:
        """(id, created_at) of the rows other processes wrote for these runs in the last
        LOOKBACK_S; relayed ids older than that are forgotten (no query returns them)."""
        cutoff = timezone.now() - timedelta(seconds=LOOKBACK_S)
        for row_id in [i for i, at in self.relayed.items() if at < cutoff]:
            del self.relayed[row_id]
        rows = LiveMessage.objects.filter(run_id__in=run_ids, created_at__gte=cutoff)
        return list(rows.exclude(origin=origin()).values_list("id", "created_at"))

    def _skip_existing(self, run_id: int) -> None:
        self.relayed.update(self._recent([run_id]))

    def new_rows(self, run_ids: list[int]) -> list[tuple[int, str]]:
        """[(run id, text)] of the rows not relayed yet, in the order they were written.
        One query, two when there is something new."""
        if not run_ids:
            return []
        fresh = {i: at for i, at in self._recent(run_ids) if i not in self.relayed}
        if not fresh:
            return []
        self.relayed.update(fresh)
        rows = LiveMessage.objects.filter(id__in=list(fresh)).order_by("id")
        return list(rows.values_list("run_id", "text"))


_TAILS: dict[asyncio.AbstractEventLoop, DatabaseTail] = {}


async def watch(run_id: int) -> None:
    """A viewer of the run joined in this process: relay other processes' messages for it."""
    loop = asyncio.get_running_loop()
    tail = _TAILS.get(loop)
    if tail is None:
        tail = _TAILS[loop] = DatabaseTail(get_channel_layer())
    await tail.watch(run_id)


def unwatch(run_id: int) -> None:
    loop = asyncio.get_running_loop()
    tail = _TAILS.get(loop)
    if tail is not None and tail.unwatch(run_id):
        del _TAILS[loop]
