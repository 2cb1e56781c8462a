"""The trainer-side client: batching, backoff, and a spool that survives a server outage."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from rest_framework.authtoken.models import Token

from runs.client import MetricsClient
from runs.models import MetricPoint
from tests.conftest import ROOT, free_port, start_daphne, subprocess_env

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
        client.log(30, {"k": 30.0})  # the next send replays the spool first
        assert client.flush(timeout=30)
        client.close()
    finally:
        server.stop()
    assert stored_steps(alice_run.pk, "k") == list(range(31))
    assert not client.spool_path.exists()


def test_a_spool_left_by_an_earlier_process_is_replayed(asgi_server, alice, alice_run, tmp_path):
    token = Token.objects.create(user=alice).key
    client = MetricsClient(asgi_server, token, alice_run.pk, spool_dir=tmp_path)
    spool = client.spool_path
    spool.write_text(
        json.dumps({"run": alice_run.pk, "points": [{"step": 4, "key": "k", "value": 1.5}]}) + "\n"
    )
    assert client.replay_spool() == 1
    client.close()
    assert stored_steps(alice_run.pk, "k") == [4] and not spool.exists()


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
