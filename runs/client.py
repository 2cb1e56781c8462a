"""Send training metrics to a codeopt server from any trainer. Standard library only.

This file does not need Django (or anything outside the standard library): copy it next to
a TRL, verl or hand-written loop, or import it from the codeopt package.

    client = MetricsClient("http://127.0.0.1:8000", token, run_id)
    client.log(step, {"rewards/mean": 0.31, "losses/policy": float("nan")})
    ...
    client.close()   # sends what is queued, or spools it

Points are batched and sent by a background thread. A failed send is retried with
exponential backoff; when the server stays unreachable the batch is appended to a spool
file (JSON lines) and replayed, oldest first, as soon as the server answers again, also by
a later process for the same run. The server stores each (run, step, key) once, so a batch
sent twice is harmless. A batch the server rejects as invalid (HTTP 400) is never retried:
it goes to `<spool>.rejected` with the server's reason.
"""

from __future__ import annotations

import json
import logging
import math
import os
import queue
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

log = logging.getLogger("codeopt.client")

DEFAULT_SPOOL_DIR = Path(os.environ.get("CODEOPT_SPOOL_DIR", Path.home() / ".cache" / "codeopt"))


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


def _request(method: str, url: str, token: str, body: dict | None, timeout: float) -> dict:
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
        raise ConnectionError(f"HTTP {exc.code}: {text[:200]}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise ConnectionError(str(exc)) from None


def create_run(base_url: str, token: str, name: str, *, timeout: float = 10.0, **fields) -> int:
    """Create a run (fields: team, config, model_name, tags, notes, status); returns its id."""
    body = {"name": name, **fields}
    return int(_request("POST", f"{base_url.rstrip('/')}/api/runs/", token, body, timeout)["id"])


def set_status(base_url: str, token: str, run_id: int, status: str, *, timeout: float = 10.0):
    url = f"{base_url.rstrip('/')}/api/runs/{run_id}/"
    return _request("PATCH", url, token, {"status": status}, timeout)


class MetricsClient:
    """Batches points in memory and sends them from a background thread.

    Args:
        base_url: the server, e.g. "http://127.0.0.1:8000".
        token: an API token (`python manage.py drf_create_token USER`).
        run_id: the run the points belong to.
        batch_size: points per request (the server accepts up to METRICS_MAX_BATCH_POINTS).
        flush_interval: seconds a point may wait for its batch to fill.
        max_retries: send attempts before a batch goes to the spool.
        backoff: first retry delay in seconds; doubled each retry, capped at 30 s.
        spool_dir: where unsent batches wait, one file per server and run
            (default $CODEOPT_SPOOL_DIR or ~/.cache/codeopt).
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
        spool_root = Path(spool_dir) if spool_dir is not None else DEFAULT_SPOOL_DIR
        spool_root.mkdir(parents=True, exist_ok=True)
        # Named by server and run: a spool is only ever replayed to where it was meant to go.
        server = urllib.parse.urlsplit(base_url).netloc.replace(":", "_") or "server"
        self.spool_path = spool_root / f"{server}-run-{run_id}.jsonl"
        self.rejected_path = spool_root / f"{server}-run-{run_id}.jsonl.rejected"
        self.sent_points = 0
        self.spooled_points = 0
        self._queue: queue.Queue = queue.Queue()
        self._idle = threading.Condition()
        self._pending = 0
        self._closed = False
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
        with self._idle:
            self._pending += 1
        self._queue.put({"step": int(step), "key": key, "value": _encode_value(value)})

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued point is sent or spooled; False if `timeout` ran out."""
        self._queue.put(_FLUSH)
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._idle:
            while self._pending > 0:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._idle.wait(remaining)
        return True

    def close(self, timeout: float | None = None) -> None:
        self.flush(timeout)
        self._closed = True
        self._queue.put(_STOP)
        self._thread.join(timeout)

    def replay_spool(self) -> int:
        """Send the spooled batches, oldest first; returns points sent. Stops at a failure."""
        if not self.spool_path.exists():
            return 0
        lines = self.spool_path.read_text().splitlines()
        sent = 0
        for index, line in enumerate(lines):
            points = json.loads(line)["points"]
            try:
                self._post(points)
            except ConnectionError:
                self._rewrite_spool(lines[index:])
                return sent
            except ServerRejected as exc:
                self._reject(points, exc)
            sent += len(points)
        self.spool_path.unlink()
        return sent

    # -- background thread -----------------------------------------------------------------

    def _loop(self) -> None:
        batch: list[dict] = []
        deadline = time.monotonic() + self.flush_interval
        stop = False
        while not stop:
            try:
                item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                item = _FLUSH
            if item is _STOP:
                stop = True
            elif item is not _FLUSH:
                batch.append(item)
                if len(batch) < self.batch_size:
                    continue
            if batch:
                self._send_or_spool(batch)
                with self._idle:
                    self._pending -= len(batch)
                    self._idle.notify_all()
                batch = []
            else:
                with self._idle:
                    self._idle.notify_all()
            deadline = time.monotonic() + self.flush_interval

    def _send_or_spool(self, points: list[dict]) -> None:
        delay = self.backoff
        for attempt in range(self.max_retries):
            try:
                if self.spool_path.exists():
                    self.replay_spool()
                    if self.spool_path.exists():
                        raise ConnectionError("server unreachable; earlier batches still spooled")
                self._post(points)
                return
            except ConnectionError as exc:
                log.warning("metrics send failed (attempt %d): %s", attempt + 1, exc)
                if attempt + 1 < self.max_retries:
                    time.sleep(delay)
                    delay = min(delay * 2, 30.0)
            except ServerRejected as exc:
                self._reject(points, exc)
                return
        with self.spool_path.open("a") as spool:
            spool.write(json.dumps({"run": self.run_id, "points": points}) + "\n")
        self.spooled_points += len(points)

    def _post(self, points: list[dict]) -> None:
        _request("POST", self.url, self.token, {"points": points}, self.timeout)
        self.sent_points += len(points)

    def _reject(self, points: list[dict], exc: ServerRejected) -> None:
        log.error("server rejected a batch of %d points: %s", len(points), exc)
        with self.rejected_path.open("a") as rejected:
            rejected.write(json.dumps({"error": exc.body, "points": points}) + "\n")

    def _rewrite_spool(self, lines: list[str]) -> None:
        tmp = self.spool_path.with_suffix(".tmp")
        tmp.write_text("".join(line + "\n" for line in lines))
        os.replace(tmp, self.spool_path)


_FLUSH = object()
_STOP = object()
