"""The trainer-side client: batching, backoff, and a spool that survives a server outage."""

from __future__ import annotations

import json
import logging
import math
import socket
import subprocess
import sys
import time

import pytest
from rest_framework.authtoken.models import Token

from runs.client import MetricsClient, spool_path
from runs.models import MetricPoint
from tests.conftest import ROOT, free_port, start_daphne, subprocess_env, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


def stored_steps(run_id: int, key: str) -> list[int]:
    return sorted(
        MetricPoint.objects.filter(series__run_id=run_id, series__key=key).values_list(
            "step", flat=True
        )
    )


def test_the_client_module_imports_without_django():
    code = (
        "import sys; sys.modules['django'] = None; sys.modules['rest_framework'] = None\n"
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('c', r'{ROOT / 'runs' / 'client.py'}')\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "print(m.MetricsClient.__name__)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "MetricsClient"


def test_points_logged_through_the_client_reach_the_server(asgi_server, alice, alice_run, tmp_path):
    token = Token.objects.create(user=alice).key
    client = MetricsClient(asgi_server, token, alice_run.pk, batch_size=7, spool_dir=tmp_path)
    for step in range(20):
        client.log(
            step, {"rewards/mean": step / 20, "losses/policy": math.nan if step == 3 else 0.1}
        )
    assert client.flush(timeout=30)
    client.close()
    assert stored_steps(alice_run.pk, "rewards/mean") == list(range(20))
    nan_point = MetricPoint.objects.get(series__run=alice_run, series__key="losses/policy", step=3)
    assert nan_point.value is None
    assert client.sent_points == 40 and client.spooled_points == 0


def test_the_spool_keeps_every_point_through_a_server_outage(
    alice, alice_run, tmp_path, tmp_path_factory
):
    """Server down: points go to the spool. Server up: the spool is replayed, nothing lost."""
    token = Token.objects.create(user=alice).key
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    client = MetricsClient(
        url, token, alice_run.pk, batch_size=10, max_retries=2, backoff=0.01, spool_dir=tmp_path
    )
    for step in range(30):
        client.log(step, {"k": float(step)})
    assert client.flush(timeout=30)
    assert client.spooled_points == 30 and client.spool_path.exists()
    assert stored_steps(alice_run.pk, "k") == []

    log = tmp_path_factory.mktemp("outage") / "daphne.log"
    server = start_daphne(port, subprocess_env(), log)
    try:
        client.log(30, {"k": 30.0})  # the spool goes first, ahead of this point
        assert client.flush(timeout=30)
        client.close()
    finally:
        server.stop()
    assert stored_steps(alice_run.pk, "k") == list(range(31))
    assert not client.spool_path.exists()


def spooled_steps(path) -> list[int]:
    """The steps of every point in a spool file, one entry per spooled copy."""
    lines = path.read_text().splitlines()
    return sorted(point["step"] for line in lines for point in json.loads(line)["points"])


def test_a_new_client_delivers_an_earlier_spool_oldest_first_without_logging_anything(
    asgi_server, alice, alice_run, tmp_path
):
    token = Token.objects.create(user=alice).key
    spool = spool_path(asgi_server, alice_run.pk, tmp_path)
    batches = [
        {"run": alice_run.pk, "points": [{"step": 4, "key": "k", "value": 1.0}]},  # no id: old
        {"run": alice_run.pk, "batch": "b", "points": [{"step": 4, "key": "k", "value": 2.0}]},
        {"run": alice_run.pk, "batch": "c", "points": [{"step": -1, "key": "k", "value": 0}]},
    ]
    spool.write_text("".join(json.dumps(batch) + "\n" for batch in batches))

    client = MetricsClient(asgi_server, token, alice_run.pk, spool_dir=tmp_path)
    wait_until(lambda: not spool.exists(), 30, "the new client to replay the spool")
    assert client.close() == 0
    # oldest first: the later value of step 4 is the one kept (the server's last value wins)
    point = MetricPoint.objects.get(series__run=alice_run, series__key="k")
    assert (point.step, point.value) == (4, 2.0)
    assert json.loads(client.rejected_path.read_text())["points"][0]["step"] == -1


def test_close_with_the_server_down_spools_every_batch_at_once_for_a_later_client(
    alice, alice_run, tmp_path, tmp_path_factory, caplog
):
    """Five batches pending, no server: close() spools all of them within its bound (the
    default retries would back off 1.75 s a batch); a later client that logs nothing
    delivers them once the server is back, each point once."""
    token = Token.objects.create(user=alice).key
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    client = MetricsClient(url, token, alice_run.pk, batch_size=10, spool_dir=tmp_path)
    for step in range(50):
        client.log(step, {"k": float(step)})
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="codeopt.client"):
        spooled = client.close(timeout=3.0)
    elapsed = time.monotonic() - started
    assert spooled == 5 and client.batches_spooled_at_close == 5
    assert elapsed < 3.5, f"close took {elapsed:.2f} s"
    assert "close: 5 batches spooled" in caplog.text
    assert spooled_steps(client.spool_path) == list(range(50))

    server = start_daphne(port, subprocess_env(), tmp_path_factory.mktemp("back") / "daphne.log")
    try:
        later = MetricsClient(url, token, alice_run.pk, spool_dir=tmp_path)
        wait_until(lambda: not later.spool_path.exists(), 30, "the later client to replay")
        assert later.close() == 0
    finally:
        server.stop()
    assert stored_steps(alice_run.pk, "k") == list(range(50))
    assert later.sent_points == 50  # no batch in the spool twice


def test_close_returns_by_its_deadline_while_a_request_hangs(tmp_path):
    """A server that accepts the connection and never answers: the batch in flight and the
    four behind it are spooled when close()'s 1 s run out, not after the 10 s request
    timeout."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.settimeout(30)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        client = MetricsClient(url, "token", 1, batch_size=10, spool_dir=tmp_path)
        for step in range(50):
            client.log(step, {"k": float(step)})
        connection, _ = listener.accept()  # the first batch is out; nothing will answer it
        with connection:
            started = time.monotonic()
            spooled = client.close(timeout=1.0)
            elapsed = time.monotonic() - started
    assert spooled == 5
    assert elapsed < 1.5, f"close took {elapsed:.2f} s"
    assert spooled_steps(client.spool_path) == list(range(50))


def test_a_batch_the_server_rejects_is_kept_aside_not_retried(
    asgi_server, alice, alice_run, tmp_path
):
    token = Token.objects.create(user=alice).key
    client = MetricsClient(asgi_server, token, alice_run.pk, spool_dir=tmp_path)
    client.log_point(-1, "k", 1.0)  # a negative step: HTTP 400
    assert client.flush(timeout=30)
    client.close()
    rejected = json.loads(client.rejected_path.read_text())
    assert json.loads(rejected["error"]) == {"index": 0, "field": "step", "error": "-1 is negative"}
    assert rejected["points"] == [{"step": -1, "key": "k", "value": 1.0}]
    assert not client.spool_path.exists()
