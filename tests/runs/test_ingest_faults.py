"""Logging through faults (issue 20, item 3), on a real daphne and PostgreSQL: the database
cut for 10 s while a trainer logs, and the web process killed twice, lose no point and store
none twice; while the database is away the ingest answers 503 with Retry-After (never a 500,
never a half-written batch), and the client backs off, spools and replays.

benchmarks/faults.py runs the same cases on the cluster harness with 200,000 points."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest
from django.db import InterfaceError, OperationalError, connection
from rest_framework.authtoken.models import Token

from codeopt_site.middleware import DATABASE_DOWN, DatabaseUnavailableMiddleware
from runs.client import MetricsClient
from runs.models import MetricPoint
from scripts.faultproxy import FaultProxy
from tests.conftest import SERVICES_MODE, free_port, start_daphne, subprocess_env

services_only = pytest.mark.skipif(
    not SERVICES_MODE, reason="a database connection to cut: PostgreSQL, services pass only"
)

KEYS = [f"fault/k{i:02d}" for i in range(20)]
STEPS = 1500  # 30,000 points
CUT_S = 10.0


def _points_of(run_id: int) -> dict[str, list[tuple[int, float]]]:
    rows = MetricPoint.objects.filter(series__run_id=run_id).values_list(
        "series__key", "step", "value"
    )
    found: dict[str, list[tuple[int, float]]] = {}
    for key, step, value in rows:
        found.setdefault(key, []).append((step, value))
    return {key: sorted(points) for key, points in found.items()}


def _expected() -> dict[str, list[tuple[int, float]]]:
    return {key: [(s, s + i / 100) for s in range(STEPS)] for i, key in enumerate(KEYS)}


def _log_all(client: MetricsClient, during=None) -> None:
    """Every step of every key, paced over about 20 s; `during(step)` is called between."""
    for step in range(STEPS):
        client.log(step, {key: step + i / 100 for i, key in enumerate(KEYS)})
        if step % 50 == 0:
            time.sleep(0.6)
            if during is not None:
                during(step)


def _proxied_database_url(port: int) -> str:
    db = connection.settings_dict
    return f"postgres://{db.get('USER') or 'postgres'}@127.0.0.1:{port}/{db['NAME']}"


def test_a_view_that_loses_the_database_answers_503_with_retry_after_not_500(rf):
    view = DatabaseUnavailableMiddleware(lambda request: None)
    error = OperationalError('connection to server at "10.1.2.3", port 5432 failed')
    api = view.process_exception(rf.post("/api/runs/1/metrics/"), error)
    page = view.process_exception(rf.get("/runs/1/"), InterfaceError("connection already closed"))
    assert (api.status_code, api["Retry-After"]) == (503, "5")
    assert json.loads(api.content) == {"detail": DATABASE_DOWN}  # no address, no driver text
    assert (page.status_code, page["Content-Type"]) == (503, "text/plain")
    assert view.process_exception(rf.get("/runs/1/"), ValueError("a bug")) is None  # a 500


@services_only
@pytest.mark.django_db(transaction=True)
def test_the_database_cut_for_ten_seconds_loses_no_point_and_the_ingest_answers_503(
    alice, alice_run, tmp_path
):
    token = Token.objects.create(user=alice).key
    proxy = FaultProxy(
        connection.settings_dict.get("HOST") or "127.0.0.1",
        int(connection.settings_dict.get("PORT") or 5432),
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = subprocess_env(DATABASE_URL=_proxied_database_url(proxy.port), DEBUG="0")
    env.update(SECRET_KEY="test-only-secret-key", ALLOWED_HOSTS="127.0.0.1")
    server = start_daphne(port, env, tmp_path / "daphne.log")
    client = MetricsClient(
        url, token, alice_run.pk, batch_size=1000, max_retries=3, backoff=0.2, spool_dir=tmp_path
    )
    cut: dict[str, float] = {}

    def fault(step: int) -> None:
        if step >= STEPS // 3 and "at" not in cut:
            proxy.cut()
            cut["at"] = time.monotonic()
            # what a client sees meanwhile: 503 naming no internals, with Retry-After
            body = json.dumps({"points": [{"step": 0, "key": KEYS[0], "value": 0.0}]}).encode()
            request = urllib.request.Request(
                f"{url}/api/runs/{alice_run.pk}/metrics/",
                data=body,
                method="POST",
                headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
            )
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(request, timeout=30)
            cut["status"] = answer.value.code
            cut["retry_after"] = answer.value.headers.get("Retry-After")
            cut["body"] = answer.value.read().decode()
        elif "at" in cut and "restored" not in cut and time.monotonic() - cut["at"] >= CUT_S:
            proxy.restore()
            cut["restored"] = time.monotonic()

    try:
        _log_all(client, fault)
        if "restored" not in cut:
            time.sleep(max(0.0, CUT_S - (time.monotonic() - cut["at"])))
            proxy.restore()
        assert client.close(timeout=120) == 0  # nothing left in a spool
    finally:
        proxy.restore()
        server.stop()
        proxy.close()
    assert cut["status"] == 503 and cut["retry_after"] == "5"
    assert "send the request again" in cut["body"] and "connection" not in cut["body"]
    assert client.failed_sends["HTTP 503"] >= 1  # the client met the outage ...
    assert "HTTP 500" not in client.failed_sends, client.failed_sends
    assert _points_of(alice_run.pk) == _expected()  # ... and lost nothing, wrote nothing twice
    assert MetricPoint.objects.filter(series__run=alice_run).count() == len(KEYS) * STEPS


@services_only
@pytest.mark.django_db(transaction=True)
def test_the_web_process_killed_twice_while_logging_loses_no_point(alice, alice_run, tmp_path):
    token = Token.objects.create(user=alice).key
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = subprocess_env()
    servers = [start_daphne(port, env, tmp_path / "daphne-0.log")]
    client = MetricsClient(
        url, token, alice_run.pk, batch_size=1000, max_retries=3, backoff=0.2, spool_dir=tmp_path
    )
    kills: list[int] = []
    restarts: list[threading.Thread] = []

    def restart(index: int) -> None:
        time.sleep(2.0)  # down for 2 s: the client retries, then spools
        servers.append(start_daphne(port, env, tmp_path / f"daphne-{index}.log"))

    def fault(step: int) -> None:
        due = [STEPS // 3, 2 * STEPS // 3]
        if len(kills) < 2 and step >= due[len(kills)] and len(servers) == len(kills) + 1:
            os.killpg(servers[-1].proc.pid, signal.SIGKILL)  # mid-stream, requests in flight
            servers[-1].proc.wait()
            kills.append(step)
            restarts.append(threading.Thread(target=restart, args=(len(kills),)))
            restarts[-1].start()

    try:
        _log_all(client, fault)
        for thread in restarts:
            thread.join()
        assert client.close(timeout=120) == 0
    finally:
        for thread in restarts:
            thread.join()
        for server in servers:
            server.stop()
    assert len(kills) == 2 and len(servers) == 3
    assert client.failed_sends["unreachable"] >= 1  # both outages were met by the client
    assert _points_of(alice_run.pk) == _expected()
    assert MetricPoint.objects.filter(series__run=alice_run).count() == len(KEYS) * STEPS
