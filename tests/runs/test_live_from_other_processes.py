"""Live from every process: points and status changes another process writes (a Celery
worker's trainer, a script) reach a viewer of the real ASGI server within a second, on the
embedded default (in-process channel layer: through the database) and with Redis (the
writer's group_send), each message once."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
import websockets
from rest_framework.authtoken.models import Token

from tests.conftest import ROOT, SERVICES_MODE, subprocess_env
from tests.runs.test_live_websocket import _session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

LATENCY_TARGET_S = 1.0


class Writer:
    """`python -m tests.live_writer RUN_ID`: a process apart from the server and the test."""

    def __init__(self, run_id: int):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.live_writer", str(run_id)],
            cwd=ROOT,
            env=subprocess_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.expect("ready", timeout=60)  # Django set-up, before any clock starts

    def expect(self, word: str, timeout: float) -> None:
        line = self._readline(timeout)
        assert line.strip() == word, f"writer said {line!r}"

    def _readline(self, timeout: float) -> str:
        # a deadline on the pipe: a writer that hangs fails the test instead of blocking it
        got: list[str] = []
        reader = threading.Thread(target=lambda: got.append(self.proc.stdout.readline()))
        reader.start()
        reader.join(timeout)
        if not got:
            self.proc.kill()
            raise AssertionError(f"the writer said nothing in {timeout} s")
        if not got[0]:
            raise AssertionError(f"the writer exited: {self.proc.stdout.read()}")
        return got[0]

    def send(self, command: dict) -> None:
        """Send a command and wait until the writer has committed it."""
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        self.expect("ok", timeout=30)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def point(step: int, value: float) -> dict:
    return {"points": [{"step": step, "key": "rewards/mean", "value": value}]}


def post(server: str, token: str, run_id: int, command: dict) -> None:
    request = urllib.request.Request(
        f"{server}/api/runs/{run_id}/metrics/",
        data=json.dumps(command).encode(),
        method="POST",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_points_and_a_status_change_from_another_process_reach_a_viewer_within_a_second(
    asgi_server, alice, alice_run
):
    token = Token.objects.create(user=alice).key
    ws_url = asgi_server.replace("http", "ws") + f"/ws/runs/{alice_run.pk}/"
    headers = {"Cookie": _session_cookie(alice), "Origin": asgi_server}
    writer = Writer(alice_run.pk)

    async def scenario() -> tuple[list[float], list[dict]]:
        latencies, messages = [], []
        async with websockets.connect(ws_url, additional_headers=headers) as socket:

            async def receive() -> dict:
                message = json.loads(await asyncio.wait_for(socket.recv(), timeout=10))
                messages.append(message)
                return message

            async def timed(command: dict, kind: str) -> dict:
                started = time.monotonic()
                await asyncio.to_thread(writer.send, command)
                message = await receive()
                latencies.append(time.monotonic() - started)
                assert message["type"] == kind, message
                return message

            first = await timed(point(0, 0.25), "metrics")
            assert first["series"]["rewards/mean"]["values"] == [0.25]
            assert (first["status"], first["last_step"]) == ("running", 0)  # queued until now
            for step in (1, 2):
                message = await timed(point(step, step / 10), "metrics")
                assert message["series"]["rewards/mean"]["steps"] == [step]
                assert message["last_step"] == step
            assert await timed({"status": "finished"}, "status") == {
                "type": "status",
                "status": "finished",
            }
            # The server's own ingest reaches the viewer directly, and the tail must not
            # send it again: every message before the writer's last one arrives once.
            await asyncio.to_thread(post, asgi_server, token, alice_run.pk, point(3, 0.3))
            await receive()
            await timed(point(4, 0.4), "metrics")
        return latencies, messages

    try:
        latencies, messages = asyncio.run(scenario())
    finally:
        writer.close()
    assert max(latencies) < LATENCY_TARGET_S, latencies
    steps = [m["series"]["rewards/mean"]["steps"][0] for m in messages if m["type"] == "metrics"]
    assert steps == [0, 1, 2, 3, 4]
    assert [m["status"] for m in messages if m["type"] == "status"] == ["finished"]
    # through the database only while the layer is in-process; with Redis, directly
    from runs.models import LiveMessage

    assert LiveMessage.objects.filter(run=alice_run).exists() is not SERVICES_MODE
