"""Scale out (issue 20, performance): scoring throughput of one batch with 1, 2 and 3 timing
hosts of the cluster harness (scripts/cluster.py), the share of wall time each host spends
idle while parts of the batch are still queued, and ingest through two web processes
against one (same clients, same run).

    .venv/bin/python benchmarks/cluster_scale.py [--hosts 1 2 3] [--programs 48]
        [--group-size 4] [--ingest-seconds 15]

Each host is one pool process pinned to one core; this machine has 2, so a third host
shares a core with the first (what it shows is the cost of an oversubscribed host, not a
gain). Idle share of a host: over the window from the job's start to the moment its last
part was claimed (while work was queued), the fraction of time none of the host's parts
was being scored.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

from _harness import on_cluster, report

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.cluster import Cluster  # noqa: E402

SLUG = "big-sum"
REWARD = "binary-top50"


def busy_share(intervals: list[tuple[float, float]], start: float, end: float) -> float:
    """The fraction of [start, end] covered by the union of `intervals`."""
    covered, reach = 0.0, start
    for a, b in sorted(intervals):
        a, b = max(a, reach), min(b, end)
        if b > a:
            covered += b - a
            reach = b
    return covered / (end - start) if end > start else 1.0


def scoring(hosts: int, programs: int, group_size: int) -> dict:
    cores = sorted(os.sched_getaffinity(0))
    core_sets = [[cores[i % len(cores)]] for i in range(hosts)]
    with Cluster(timing_hosts=hosts, web=1, cores=core_sets) as cluster:
        token, problems = on_cluster(cluster, [SLUG])
        from django.db import connections
        from scoring_service import batch

        from scoring.client import ScoringClient
        from scoring.models import ScoringJob

        client = ScoringClient(cluster.web_urls[0], token, timeout=1800, poll_wait=10)
        warm = [(SLUG, [min(problems[SLUG].accepted_python.values(), key=len)])] * hosts
        client.wait(client.submit(warm, REWARD))  # the problem loaded on the hosts
        cluster.wait_fit()  # every host calibrated and taking scoring work
        groups = batch(problems, programs, group_size)
        started = time.perf_counter()
        job_id = client.submit(groups, REWARD)
        answer = client.wait(job_id)
        wall = time.perf_counter() - started
        assert all(s["verdict"] == "OK" for g in answer["groups"] for s in g["samples"]), answer
        job = ScoringJob.objects.get(pk=job_id)
        parts = list(job.parts.all())
        begin = job.started_at.timestamp()
        queued_until = max(p.started_at.timestamp() for p in parts)
        idle = {}
        for host in cluster.hosts:
            mine = [
                (p.started_at.timestamp(), p.finished_at.timestamp())
                for p in parts
                if p.worker.startswith(host.hostname)
            ]
            idle[host.name] = round(1 - busy_share(mine, begin, queued_until), 3)
        per_host = {
            h.name: sum(1 for p in parts if p.worker.startswith(h.hostname)) for h in cluster.hosts
        }
        connections.close_all()
        return {
            "hosts": hosts,
            "programs": programs,
            "groups": len(groups),
            "wall_s": round(wall, 2),
            "programs_per_s": round(programs / wall, 2),
            "queued_window_s": round(queued_until - begin, 2),
            "idle_share_while_queued": idle,
            "groups_per_host": per_host,
        }


def ingest(seconds: float) -> list[dict]:
    from ingest_throughput import run_clients

    results = []
    with Cluster(timing_hosts=1, web=2) as cluster:
        token, _ = on_cluster(cluster, [SLUG])
        from django.contrib.auth.models import User

        from foundation.tenancy import Team
        from runs import services

        user = User.objects.get(username="bench")
        team = Team.objects.get(name="bench")
        for webs in (1, 2):
            run = services.do_create_run(owner=user, team=team, name=f"ingest-{webs}-web")
            urls = cluster.web_urls[:webs]
            figures = run_clients(urls, token, run.pk, 5000, seconds, clients=2)
            results.append({"web_processes": webs, **figures})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hosts", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--programs", type=int, default=48)
    parser.add_argument("--group-size", type=int, default=4)
    parser.add_argument("--ingest-seconds", type=float, default=15.0)
    args = parser.parse_args()
    if any(not 1 <= n <= 8 for n in args.hosts):
        parser.error("--hosts: each from 1 to 8")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # one process, several clusters: each run sets Django up once (the first cluster's
    # database), so every measurement runs in a child process of its own
    if os.environ.get("CODEOPT_SCALE_CHILD"):
        kind, value = os.environ["CODEOPT_SCALE_CHILD"].split(":")
        import json

        if kind == "scoring":
            print(json.dumps(scoring(int(value), args.programs, args.group_size)))
        else:
            print(json.dumps(ingest(float(value))))
        return
    import json
    import subprocess

    def child(spec: str):
        env = {**os.environ, "CODEOPT_SCALE_CHILD": spec}
        done = subprocess.run(
            [sys.executable, __file__, *sys.argv[1:]], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"{spec} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    scaling = [child(f"scoring:{n}") for n in args.hosts]
    for row in scaling:
        print(json.dumps(row), flush=True)
    ingested = child(f"ingest:{args.ingest_seconds}")
    report("cluster_scale", {"scoring": scaling, "ingest": ingested})


if __name__ == "__main__":
    main()
