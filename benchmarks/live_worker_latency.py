"""Live latency of metrics a worker writes, beside metrics posted through the HTTP API.

A real daphne serves 10 websocket viewers of one run. Batches of 20 keys go in turn through
two paths: a process apart from the server writing them as a training run's Celery worker
does (`training.sink.DatabaseSink.log`, which calls the ingest service), and the
HTTP API of the server (as an external trainer does). Latency is receipt at a viewer minus
the moment this process handed the batch to the writer or began the POST (one clock: both
are driven and received here), so it includes the ingest itself on both paths; the first
batch of each path warms the processes up and is not timed. Every viewer must receive each
batch exactly once; duplicates and losses are counted.

Two deployments, each in a child process of its own:
- embedded: SQLite, the in-process channel layer (no REDIS_URL): a worker's batches reach
  the server through the database (runs/live.py);
- redis: PostgreSQL and the Redis channel layer: they reach it through Redis.

    .venv/bin/python benchmarks/live_worker_latency.py [--viewers 10] [--batches 100] \
        [--redis-url redis://127.0.0.1:6379/2] [--deployments embedded,redis]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

import websockets
from _harness import (
    BENCH_DB,
    ROOT,
    bench_env,
    daphne,
    make_owner,
    post_points,
    recreate_database,
    report,
    setup_django,
)

KEYS = [f"live/key_{i:02d}" for i in range(20)]
PATHS = ("worker", "http_api")
WARM_UP_STEPS = 2  # one batch a path, not timed: a fresh server's first request loads Django
DRAIN_S = 1.0  # five of the web process's reads of the database (runs.live.POLL_S)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def deployment_env(name: str, redis_url: str) -> dict[str, str]:
    if name == "embedded":
        sqlite = ROOT / "var" / "bench-live" / "codeopt.sqlite3"
        return {"DATABASE_URL": f"sqlite:///{sqlite}", "REDIS_URL": ""}
    return {"DATABASE_URL": BENCH_DB, "REDIS_URL": redis_url}


def fresh_database(env: dict[str, str]) -> None:
    if env["DATABASE_URL"].startswith("sqlite"):
        path = env["DATABASE_URL"].removeprefix("sqlite:///")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=bench_env(**env),
            check=True,
        )
    else:
        recreate_database()


class Writer:
    """This script in `--writer` mode: a process of its own writing through DatabaseSink."""

    def __init__(self, env: dict[str, str], training_pk: int):
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--writer", str(training_pk)],
            cwd=ROOT,
            env=bench_env(**env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout.readline().strip() == "ready"

    def write(self, step: int) -> None:
        self.proc.stdin.write(f"{step}\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "ok"

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def run_writer(training_pk: int) -> None:
    import django  # the parent set this process's environment (its deployment's database)

    django.setup()
    from training.models import TrainingRun
    from training.sink import DatabaseSink

    sink = DatabaseSink(TrainingRun.objects.get(pk=training_pk), {})
    print("ready", flush=True)
    for line in sys.stdin:
        step = int(line)
        sink.log(step, {key: step * 0.01 for key in KEYS})
        print("ok", flush=True)


async def measure(url, token, cookie, run_id, writer, viewers: int, batches: int) -> dict:
    sent_at: dict[int, float] = {}
    latencies: dict[str, list[float]] = {path: [] for path in PATHS}
    received: list[dict[int, int]] = [{} for _ in range(viewers)]
    ws_url = url.replace("http", "ws") + f"/ws/runs/{run_id}/"
    headers = {"Cookie": cookie, "Origin": url}
    sockets = [
        await websockets.connect(ws_url, additional_headers=headers, max_size=None)
        for _ in range(viewers)
    ]
    last_step = WARM_UP_STEPS + 2 * batches - 1

    async def viewer(index: int, socket) -> None:
        # Until every batch arrived (a worker's batch may come after the next API batch),
        # then DRAIN_S more for late duplicates.
        timeout = 10.0
        while True:
            if len(received[index]) == last_step + 1:
                timeout = DRAIN_S
            try:
                message = json.loads(await asyncio.wait_for(socket.recv(), timeout=timeout))
            except TimeoutError:
                return  # what did not come is counted as missing
            if message["type"] != "metrics":
                continue
            now = time.monotonic()
            step = message["series"][KEYS[0]]["steps"][0]
            seen = received[index]
            seen[step] = seen.get(step, 0) + 1
            if seen[step] == 1 and step >= WARM_UP_STEPS:
                latencies[PATHS[step % 2]].append(now - sent_at[step])

    def post(step: int) -> None:
        sent_at[step] = time.monotonic()
        post_points(url, token, run_id, step, KEYS)

    def through_worker(step: int) -> None:
        sent_at[step] = time.monotonic()
        writer.write(step)

    tasks = [asyncio.create_task(viewer(i, s)) for i, s in enumerate(sockets)]
    for step in range(last_step + 1):  # even steps from the worker, odd ones through the API
        await asyncio.to_thread(through_worker if step % 2 == 0 else post, step)
        await asyncio.sleep(0.1)
    await asyncio.gather(*tasks)
    for socket in sockets:
        await socket.close()
    counts = [n for seen in received for n in seen.values()]
    figures = {"viewers": viewers, "batches_per_path": batches}
    for path in PATHS:
        values = latencies[path]
        figures[path] = {"messages": len(values)}
        if values:  # none arrive where a path does not reach the server
            figures[path].update(
                p50_ms=round(1000 * statistics.median(values)),
                p95_ms=round(1000 * percentile(values, 0.95)),
                max_ms=round(1000 * max(values)),
            )
    figures["duplicates"] = sum(n - 1 for n in counts)
    figures["missing"] = viewers * (last_step + 1) - len(counts)
    return figures


def run_deployment(name: str, redis_url: str, viewers: int, batches: int) -> dict:
    env = deployment_env(name, redis_url)
    fresh_database(env)
    setup_django(**env)
    from django.test import Client

    from runs import services
    from training.models import TrainingRun

    user, team, token = make_owner()
    run = services.do_create_run(owner=user, team=team, name=f"live-worker-latency-{name}")
    training = TrainingRun.objects.create(run=run, config={}, checkpoint_dir="")
    browser = Client()
    browser.force_login(user)
    cookie = f"sessionid={browser.cookies['sessionid'].value}"
    writer = Writer(env, training.pk)
    try:
        with daphne(**env) as url:
            figures = asyncio.run(measure(url, token, cookie, run.pk, writer, viewers, batches))
    finally:
        writer.close()
    figures["database"] = "sqlite" if name == "embedded" else "postgresql"
    figures["channel_layer"] = "in_memory" if name == "embedded" else "redis"
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--batches", type=int, default=100, help="per path")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/2")
    parser.add_argument("--deployments", default="embedded,redis")
    parser.add_argument("--writer", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one deployment, in a child
    args = parser.parse_args()
    if args.writer is not None:
        run_writer(args.writer)
        return
    if args.only:
        print(json.dumps(run_deployment(args.only, args.redis_url, args.viewers, args.batches)))
        return
    results = {}
    for name in args.deployments.split(","):
        # Django is set up once per process, on one database: a child per deployment
        child = subprocess.run(
            [sys.executable, __file__, "--only", name, *sys.argv[1:]],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        results[name] = json.loads(child.stdout.strip().splitlines()[-1])
    report("live_worker_latency", results)


if __name__ == "__main__":
    main()
