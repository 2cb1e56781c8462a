"""Live latency from API ingest to websocket message, 50 concurrent viewers of one run.

A trainer posts a batch (20 keys) every 100 ms through the HTTP API of a real daphne on
PostgreSQL; 50 websocket viewers of the run record when each batch reaches them. Latency is
receipt time minus the moment the POST began (one clock: all in this process). Run once with
the in-process channel layer and once with Redis. Target: p95 under 1 s.

    .venv/bin/python benchmarks/live_latency.py [--viewers 50] [--batches 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import websockets
from _harness import daphne, make_owner, post_points, recreate_database, report, setup_django

KEYS = [f"live/key_{i:02d}" for i in range(20)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(
    url: str, token: str, cookie: str, run_id: int, viewers: int, batches: int, first_step: int
) -> dict:
    sent_at: dict[int, float] = {}
    latencies: list[float] = []
    ws_url = url.replace("http", "ws") + f"/ws/runs/{run_id}/"
    headers = {"Cookie": cookie, "Origin": url}
    sockets = [
        await websockets.connect(ws_url, additional_headers=headers, max_size=None)
        for _ in range(viewers)
    ]

    async def viewer(socket) -> int:
        seen = 0
        while seen < batches:
            message = json.loads(await asyncio.wait_for(socket.recv(), timeout=30))
            step = message["series"][KEYS[0]]["steps"][0]
            latencies.append(time.monotonic() - sent_at[step])
            seen += 1
        return seen

    def post(step: int) -> None:
        sent_at[step] = time.monotonic()
        post_points(url, token, run_id, step, KEYS)

    tasks = [asyncio.create_task(viewer(s)) for s in sockets]
    for step in range(first_step, first_step + batches):
        await asyncio.to_thread(post, step)
        await asyncio.sleep(0.1)
    received = sum(await asyncio.gather(*tasks))
    for socket in sockets:
        await socket.close()
    return {
        "viewers": viewers,
        "batches": batches,
        "messages": received,
        "p50_ms": round(1000 * statistics.median(latencies)),
        "p95_ms": round(1000 * percentile(latencies, 0.95)),
        "max_ms": round(1000 * max(latencies)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--viewers", type=int, default=50)
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/2")
    args = parser.parse_args()
    recreate_database()
    setup_django()
    from django.test import Client

    from runs import services

    user, team, token = make_owner()
    run = services.do_create_run(owner=user, team=team, name="live-latency")
    browser = Client()
    browser.force_login(user)
    cookie = f"sessionid={browser.cookies['sessionid'].value}"
    results = {}
    layers = (("in_memory", {"REDIS_URL": ""}), ("redis", {"REDIS_URL": args.redis_url}))
    for index, (layer, extra) in enumerate(layers):
        with daphne(**extra) as url:
            results[layer] = asyncio.run(
                measure(
                    url, token, cookie, run.pk, args.viewers, args.batches, index * args.batches
                )
            )
    report("live_latency", results)


if __name__ == "__main__":
    main()
