"""Send training metrics to a codeopt server from any trainer. Standard library only.

This file does not need Django (or anything outside the standard library): copy it next to
a TRL, verl or hand-written loop, or import it from the codeopt package.

    client = MetricsClient("http://127.0.0.1:8000", token, run_id)
    client.log(step, {"rewards/mean": 0.31, "losses/policy": float("nan")})
    ...
    client.close()   # sends what is queued within 5 s, or spools it; returns batches spooled

Points are batched and sent by a background thread. A failed send is retried with
exponential backoff; when the server stays unreachable the batch is appended to a spool
file (JSON lines, one file per server and run: `spool_path`). The spool is replayed oldest
first and ahead of newer batches: as soon as a client for the run starts (without waiting
for a first `log`), before each send, and while idle, with backoff, until the server
answers. A replayed batch leaves the spool only once the server acknowledged it; the spool
is rewritten atomically (temp file + os.replace) under a lock file beside it
(`<spool>.lock`, flock where the platform has it), so two processes of one run may spool
and replay at once (both may then send a batch).

`close(timeout=5.0)` is bounded in all, not per batch: queued batches are sent while the
deadline allows, without retries; after the first connection failure, or at the deadline,
every batch left goes straight to the spool, and close returns (and logs) how many batches
it spooled. The server stores each (run, step, key) once, so a batch sent twice is
harmless. A batch the server rejects as invalid (HTTP 400) is never retried: it goes to
`<spool>.rejected` with the server's reason.

Scoring programs from a trainer: scoring/client.py (it sends through `api_request` here).
"""

from __future__ import annotations

import collections
import contextlib
import http.client
import json
import logging
import math
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: the in-process lock alone keeps one process safe
    fcntl = None

log = logging.getLogger("codeopt.client")

DEFAULT_SPOOL_DIR = Path(os.environ.get("CODEOPT_SPOOL_DIR", Path.home() / ".cache" / "codeopt"))

DEFAULT_CLOSE_TIMEOUT = 5.0
"""Seconds close() may take in all: long enough for a reachable server to take the last
batches, short enough not to hold up a trainer's exit when it is down."""

MAX_BACKOFF = 30.0
"""Ceiling of the doubling retry delay, for sends and for idle spool replays."""

SPOOL_CHECKPOINT_SECONDS = 1.0
"""During a long replay, acknowledged batches are cut from the spool at most this often:
each cut rewrites the file, and a crash in between only means some batches are sent twice."""

_SPOOL_FILES_LOCK = threading.Lock()
"""Serializes this process's threads on spool files; flock does the same across processes."""


class ServerRejected(Exception):
    """The server answered 4xx: the request itself is wrong and will not succeed on retry."""

    def __init__(self, status: int, body: str):
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body


def _encode_value(value: float | int | None) -> float | int | str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


class ServerBusy(ConnectionError):
    """A 5xx, 408 or 429: the server is there but did not answer this time (`text`: its body)."""

    def __init__(self, code: int, text: str):
        super().__init__(f"HTTP {code}: {text[:200]}")
        self.code = code
        self.text = text


def api_request(method: str, url: str, token: str, body: dict | None, timeout: float) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Authorization", f"Token {token}")
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        text = exc.read().decode(errors="replace")
        if 400 <= exc.code < 500 and exc.code not in (408, 429):
            raise ServerRejected(exc.code, text) from None
        raise ServerBusy(exc.code, text) from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        # HTTPException: a connection cut mid-answer (IncompleteRead) is an outage too
        raise ConnectionError(str(exc)) from None


def create_run(base_url: str, token: str, name: str, *, timeout: float = 10.0, **fields) -> int:
    """Create a run (fields: team, config, model_name, tags, notes, status); returns its id."""
    body = {"name": name, **fields}
    return int(api_request("POST", f"{base_url.rstrip('/')}/api/runs/", token, body, timeout)["id"])


def set_status(base_url: str, token: str, run_id: int, status: str, *, timeout: float = 10.0):
    url = f"{base_url.rstrip('/')}/api/runs/{run_id}/"
    return api_request("PATCH", url, token, {"status": status}, timeout)


def spool_path(base_url: str, run_id: int, spool_dir: str | os.PathLike | None = None) -> Path:
    """The file where clients for this server and run keep the batches they could not send."""
    root = Path(spool_dir) if spool_dir is not None else DEFAULT_SPOOL_DIR
    # Named by server and run: a spool is only ever replayed to where it was meant to go.
    server = urllib.parse.urlsplit(base_url).netloc.replace(":", "_") or "server"
    return root / f"{server}-run-{run_id}.jsonl"


@contextlib.contextmanager
def _locked(lock_path: Path):
    """Hold the spool's lock: this process's threads and, with flock, other processes."""
    with _SPOOL_FILES_LOCK, open(lock_path, "a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the handle closes
        yield


def _parse_spool_line(line: str) -> tuple[str, list[dict] | None]:
    """(the batch's key, its points); points is None for a line that is not a batch (torn by
    a crash mid-append). The key is the batch id, or the line itself for a batch spooled
    without one (by an older client)."""
    try:
        record = json.loads(line)
        points = record["points"]
    except (ValueError, TypeError, KeyError):
        return line, None
    return str(record.get("batch") or line), points


def _chunks(points: list[dict], size: int) -> list[list[dict]]:
    return [points[start : start + size] for start in range(0, len(points), size)]


class MetricsClient:
    """Batches points in memory and sends them from a background thread.

    Args:
        base_url: the server, e.g. "http://127.0.0.1:8000".
        token: an API token (`python manage.py drf_create_token USER`).
        run_id: the run the points belong to.
        batch_size: points per request (the server accepts up to METRICS_MAX_BATCH_POINTS).
        flush_interval: seconds a point may wait for its batch to fill.
        max_retries: send attempts before a batch goes to the spool (before close() only).
        backoff: first retry delay in seconds; doubled each retry, capped at MAX_BACKOFF.
        timeout: seconds one request may take (cut to the time left during close()).
        spool_dir: where unsent batches wait, one file per server and run
            (default $CODEOPT_SPOOL_DIR or ~/.cache/codeopt).

    Counters: `sent_points` (replayed ones included), `spooled_points`,
    `batches_spooled_at_close`, what close() returns, and `failed_sends`, the failed
    requests by kind ("HTTP 503", "unreachable").
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        run_id: int,
        *,
        batch_size: int = 1000,
        flush_interval: float = 0.5,
        max_retries: int = 4,
        backoff: float = 0.25,
        timeout: float = 10.0,
        spool_dir: str | os.PathLike | None = None,
    ):
        self.url = f"{base_url.rstrip('/')}/api/runs/{run_id}/metrics/"
        self.token = token
        self.run_id = run_id
        self.batch_size = batch_size
        self.flush_interval = flush_interval
        self.max_retries = max_retries
        self.backoff = backoff
        self.timeout = timeout
        self.spool_path = spool_path(base_url, run_id, spool_dir)
        self.spool_path.parent.mkdir(parents=True, exist_ok=True)
        self.rejected_path = self.spool_path.with_name(self.spool_path.name + ".rejected")
        self.lock_path = self.spool_path.with_name(self.spool_path.name + ".lock")
        self.sent_points = 0
        self.spooled_points = 0
        self.batches_spooled_at_close = 0
        self.failed_sends: collections.Counter[str] = collections.Counter()
        # Shared with the background thread, under _cond: points not yet in a batch, formed
        # batches not yet sent or spooled (the thread works on the first), their point count.
        self._cond = threading.Condition()
        self._buffer: list[dict] = []
        self._buffer_due = 0.0  # when the oldest buffered point must be sent
        self._batches: collections.deque[list[dict]] = collections.deque()
        self._pending = 0
        self._flush_requested = False
        self._replay_due: float | None = None  # when to retry a spool the server did not take
        self._replay_delay = backoff
        self._closed = False
        self._closing = threading.Event()  # set by close(); cuts a backoff short
        self._deadline = math.inf  # close()'s
        self._failed_at_close = False  # a send failed after close(): spool the rest at once
        self._abandoned = False  # close() took over what the thread still held
        self._replay_lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="codeopt-metrics", daemon=True)
        self._thread.start()

    # -- public ----------------------------------------------------------------------------

    def log(self, step: int, metrics: dict[str, float | int | None]) -> None:
        """Queue one point per key at `step`. Never blocks on the network."""
        for key, value in metrics.items():
            self.log_point(step, key, value)

    def log_point(self, step: int, key: str, value: float | int | None) -> None:
        if self._closed:
            raise RuntimeError("the client is closed")
        point = {"step": int(step), "key": key, "value": _encode_value(value)}
        with self._cond:
            self._buffer.append(point)
            self._pending += 1
            if len(self._buffer) == 1:
                self._buffer_due = time.monotonic() + self.flush_interval
            if len(self._buffer) == 1 or len(self._buffer) >= self.batch_size:
                self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued point is sent or spooled; False if `timeout` ran out."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._flush_requested = True
            self._cond.notify_all()
            while self._pending > 0:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
        return True

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> int:
        """Send what is queued within `timeout` seconds in all, or spool it; returns the
        number of batches this close spooled (also logged, and kept in
        `batches_spooled_at_close`).

        1. The background thread sends the batches left, the spool first, while the deadline
           allows: no retries, no backoff, each request's timeout cut to the time left.
        2. After the first connection failure, or at the deadline, every batch left goes
           straight to the spool.
        3. At the deadline, whatever the thread still holds (a request the network keeps
           hanging) is spooled from here and the thread is left behind: close returns by
           `timeout` plus the time to append to the spool. Such a batch may reach the
           server as well (its request was already out); sent twice is harmless.
        """
        with self._cond:
            if self._closed:
                return 0
            self._closed = True
            self._deadline = time.monotonic() + timeout
            self._closing.set()
            self._cond.notify_all()
        self._thread.join(max(0.0, self._deadline - time.monotonic()))
        with self._cond:
            self._abandoned = True
            leftover = [*self._batches, *_chunks(self._buffer, self.batch_size)]
            self._batches.clear()
            self._buffer = []
            self._pending = 0
            self._cond.notify_all()
        for points in leftover:  # the thread never spools once _abandoned is set
            self._spool(points)
        if self.batches_spooled_at_close:
            log.warning(
                "close: %d batches spooled to %s (server unreachable); "
                "the next client for run %s sends them",
                self.batches_spooled_at_close,
                self.spool_path,
                self.run_id,
            )
        return self.batches_spooled_at_close

    def replay_spool(self) -> int:
        """Send the spooled batches, oldest first; returns points sent. Stops at a failure."""
        return self._replay()[0]

    # -- background thread -----------------------------------------------------------------

    def _loop(self) -> None:
        self._try_replay()  # a spool left by an earlier client goes first, unasked
        while (work := self._next_work()) is not None:
            if work is _REPLAY:
                self._try_replay()
                continue
            delivered = self._deliver(work)
            with self._cond:
                if self._abandoned:
                    return  # close() spooled this batch and the rest
                if not delivered:
                    self._spool(work)
                self._batches.popleft()
                self._pending -= len(work)
                self._cond.notify_all()

    def _next_work(self):
        """Wait for the oldest formed batch, _REPLAY when the spool is due another try, or
        None once close() has nothing left for the thread (or took over)."""
        with self._cond:
            while True:
                if self._abandoned:
                    return None
                now = time.monotonic()
                closing = self._closing.is_set()
                if self._buffer and (closing or self._flush_requested or now >= self._buffer_due):
                    self._batches.extend(_chunks(self._buffer, self.batch_size))
                    self._buffer = []
                elif len(self._buffer) >= self.batch_size:
                    full = len(self._buffer) - len(self._buffer) % self.batch_size
                    self._batches.extend(_chunks(self._buffer[:full], self.batch_size))
                    self._buffer = self._buffer[full:]
                self._flush_requested = False
                if self._batches:
                    return self._batches[0]
                if self._replay_due is not None and (now >= self._replay_due or closing):
                    return _REPLAY if self._may_send() else None
                if closing:
                    return None
                wakes = [self._replay_due] if self._replay_due is not None else []
                if self._buffer:
                    wakes.append(self._buffer_due)
                self._cond.wait(min(wakes) - now if wakes else None)

    def _may_send(self) -> bool:
        if not self._closing.is_set():
            return True
        return (
            not self._abandoned and not self._failed_at_close and time.monotonic() < self._deadline
        )

    def _deliver(self, points: list[dict]) -> bool:
        """Send one batch after the spool (it is older); False when it must be spooled.

        Before close(): up to max_retries attempts, backing off between them. After: an
        attempt only while the deadline allows and no send has failed since.
        """
        delay = self.backoff
        for attempt in range(1, self.max_retries + 1):
            if not self._may_send():
                return False
            try:
                if not self._replay()[1]:
                    raise ConnectionError("earlier batches are still spooled")
                self._post(points)
                return True
            except ServerRejected as exc:
                self._reject(points, exc)
                return True
            except ConnectionError as exc:
                log.warning("metrics send failed (attempt %d): %s", attempt, exc)
            if attempt < self.max_retries:
                self._closing.wait(delay)  # close() cuts the backoff short
                delay = min(delay * 2, MAX_BACKOFF)
        return False

    def _try_replay(self) -> None:
        """Replay the spool; when the server does not take all of it, try again later, each
        time waiting twice as long (up to MAX_BACKOFF)."""
        _, emptied = self._replay()
        with self._cond:
            if emptied:
                self._replay_due = None
                self._replay_delay = self.backoff
            else:
                self._replay_due = time.monotonic() + self._replay_delay
                self._replay_delay = min(self._replay_delay * 2, MAX_BACKOFF)

    def _replay(self) -> tuple[int, bool]:
        """Send the spooled batches, oldest first: (points sent, whether the spool is empty).

        1. Read the spool under its lock.
        2. Send each batch in turn, stopping at a connection failure (or close()'s
           deadline); a batch the server rejects goes to `<spool>.rejected`, a line that is
           no batch (torn by a crash) too.
        3. Cut the batches the server took from the spool, by id and atomically, at most
           every SPOOL_CHECKPOINT_SECONDS and at the end; batches spooled meanwhile, by this
           process or another, stay.
        """
        with self._replay_lock:
            if not self.spool_path.exists():
                return 0, True
            with _locked(self.lock_path):
                lines = self._read_spool()
            sent = 0
            done: set[str] = set()
            checkpoint_at = time.monotonic() + SPOOL_CHECKPOINT_SECONDS
            for index, line in enumerate(lines):
                if not self._may_send():
                    break
                key, points = _parse_spool_line(line)
                if points is None:
                    log.error("an unreadable spool line is set aside in %s", self.rejected_path)
                    record = {"error": "unreadable spool line", "line": line}
                    self._append_line(self.rejected_path, record)
                else:
                    try:
                        self._post(points)
                        sent += len(points)
                    except ConnectionError as exc:
                        left = len(lines) - index
                        log.warning("spool replay stopped, %d batches left: %s", left, exc)
                        break
                    except ServerRejected as exc:
                        self._reject(points, exc)
                done.add(key)
                if time.monotonic() >= checkpoint_at:
                    self._cut_from_spool(done)
                    checkpoint_at = time.monotonic() + SPOOL_CHECKPOINT_SECONDS
            return sent, self._cut_from_spool(done) == 0

    def _post(self, points: list[dict]) -> None:
        timeout = self.timeout
        if self._closing.is_set():
            timeout = min(timeout, self._deadline - time.monotonic())
            if timeout <= 0:
                raise ConnectionError("close()'s deadline passed")
        try:
            api_request("POST", self.url, self.token, {"points": points}, timeout)
        except ConnectionError as exc:
            text = str(exc)
            kind = text.split(":")[0] if text.startswith("HTTP ") else "unreachable"
            self.failed_sends[kind] += 1
            if self._closing.is_set():
                self._failed_at_close = True
            raise
        self.sent_points += len(points)

    def _reject(self, points: list[dict], exc: ServerRejected) -> None:
        log.error("server rejected a batch of %d points: %s", len(points), exc)
        self._append_line(self.rejected_path, {"error": exc.body, "points": points})

    # -- spool files -----------------------------------------------------------------------

    def _spool(self, points: list[dict]) -> None:
        """Append a batch to the spool. Callers: the thread holding _cond, or close() once
        the thread is abandoned, so the counters have one writer at a time."""
        record = {"run": self.run_id, "batch": uuid.uuid4().hex, "points": points}
        self._append_line(self.spool_path, record)
        self.spooled_points += len(points)
        if self._closing.is_set():
            self.batches_spooled_at_close += 1
        elif self._replay_due is None:
            self._replay_due = time.monotonic() + self._replay_delay

    def _append_line(self, path: Path, record: dict) -> None:
        line = json.dumps(record).encode() + b"\n"
        with _locked(self.lock_path), open(path, "ab+") as handle:
            if handle.seek(0, os.SEEK_END) > 0:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":  # a line torn by a crash: keep this one apart
                    line = b"\n" + line
            handle.write(line)

    def _read_spool(self) -> list[str]:
        """The spool's batches, oldest first. Precondition: the spool's lock is held."""
        if not self.spool_path.exists():
            return []
        text = self.spool_path.read_text(errors="replace")
        return [line for line in text.splitlines() if line.strip()]

    def _cut_from_spool(self, done: set[str]) -> int:
        """Remove the batches whose keys are in `done`, atomically; returns the batches left."""
        with _locked(self.lock_path):
            lines = self._read_spool()
            keep = [line for line in lines if _parse_spool_line(line)[0] not in done]
            if not keep:
                self.spool_path.unlink(missing_ok=True)
            elif len(keep) < len(lines):
                tmp = self.spool_path.with_name(self.spool_path.name + ".tmp")
                tmp.write_text("".join(line + "\n" for line in keep))
                os.replace(tmp, self.spool_path)
            return len(keep)


_REPLAY = object()
