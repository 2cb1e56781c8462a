"""Ingest throughput into PostgreSQL through the HTTP API (target: >= 50,000 points/s).

Clients post batches of 5,000 points (and, in the same run for comparison, batches of 1,000,
MLflow's per-request cap) to a real daphne on a fresh PostgreSQL database, for a fixed time.

    .venv/bin/python benchmarks/ingest_throughput.py [--seconds 20] [--clients 2]
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.request

from _harness import daphne, make_owner, recreate_database, report, setup_django

KEYS = [f"bench/key_{i:02d}" for i in range(20)]


def run_clients(
    urls: list[str], token: str, run_id: int, batch: int, seconds: float, clients: int
) -> dict:
    """Each client sends batches of `batch` points (20 keys x batch/20 steps) until time is
    up, client i to urls[i % len(urls)]."""
    sent = [0] * clients
    latencies: list[float] = []
    errors: list[str] = []
    stop_at = time.monotonic() + seconds

    def worker(index: int) -> None:
        url = urls[index % len(urls)]
        steps_per_batch = batch // len(KEYS)
        step = index * 10**9  # clients write disjoint steps
        while time.monotonic() < stop_at:
            points = [
                {"step": step + s, "key": k, "value": (step + s) * 1e-3}
                for s in range(steps_per_batch)
                for k in KEYS
            ]
            body = json.dumps({"points": points}).encode()
            request = urllib.request.Request(
                f"{url}/api/runs/{run_id}/metrics/",
                data=body,
                method="POST",
                headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
            )
            started = time.monotonic()
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    response.read()
            except Exception as exc:  # counted and reported, not hidden
                errors.append(str(exc))
                continue
            latencies.append(time.monotonic() - started)
            sent[index] += len(points)
            step += steps_per_batch

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - began
    latencies.sort()
    return {
        "batch": batch,
        "points": sum(sent),
        "seconds": round(elapsed, 2),
        "points_per_s": round(sum(sent) / elapsed),
        "request_p50_ms": round(1000 * latencies[len(latencies) // 2]) if latencies else None,
        "errors": len(errors),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--batch", type=int, nargs="+", default=[5000, 1000])
    args = parser.parse_args()
    recreate_database()
    setup_django()
    from runs import services

    user, team, token = make_owner()
    with daphne() as url:
        results = []
        for batch in args.batch:
            run = services.do_create_run(owner=user, team=team, name=f"ingest-{batch}")
            results.append(run_clients([url], token, run.pk, batch, args.seconds, args.clients))
    from runs.models import MetricPoint

    report(
        "ingest_throughput",
        {"clients": args.clients, "runs": results, "stored_points": MetricPoint.objects.count()},
    )


if __name__ == "__main__":
    main()
