"""Faults survived, counted (issue 20, item 3): each case on the cluster harness
(scripts/cluster.py: two web processes and two timing hosts, plus a training host for the
training case, sharing only PostgreSQL and Redis, each through a fault proxy), then a table
of counts per case and one JSON line with all of them.

    .venv/bin/python benchmarks/faults.py [--cases timing-host-killed broker-cut ...]
        [--points 200000]

Cases (each also a CI test where it runs in minutes: tests/workers/test_cluster.py,
tests/runs/test_ingest_faults.py):
  timing-host-killed    a scoring job; the host coordinating it is killed (SIGKILL, whole
                        process group) mid-job and started again
  broker-cut            four jobs running and one posted during a 10 s cut of every
                        process's broker connection
  scoring-redelivered   the messages of a finished job (coordinator and every part) sent again
  database-cut          POINTS points logged through one web process while every process's
                        database connection is cut for 10 s
  web-killed-twice      POINTS points logged while the web process they go to is killed
                        (SIGKILL) twice, each time back after 2 s
  training-worker-killed  a tiny training run whose worker is killed after its first
                        checkpoint and started again; compared with the same run without fault

"Scored twice" and "claimed" come from an audit trigger on the scoring tables
(Cluster.audit_scoring); points from the database after the case. Needs PostgreSQL on
127.0.0.1:5432 and Redis on 127.0.0.1:6379 (databases 10 and 12).
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from _harness import on_cluster, report

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.cluster import Cluster, wait_until  # noqa: E402

SLUG = "big-sum"
REWARD = "binary-top50"
CUT_S = 10.0
DEADLINE_S = 900.0
"""A job not done this long after its fault is counted lost (a rescue takes 30-40 s, then
the job's own scoring: about 30 s a group on a loaded 2-core host)."""
KEYS = [f"fault/k{i:02d}" for i in range(20)]
WRONG = "print(-1)\n"
TRAIN_TOML = """model = "tiny"
reward_config = "binary-top50"
split = "all"
max_problems = 1
group_size = 2
prompts_per_step = 1
steps = 12
max_new_tokens = 48
warm_start_steps = 20
checkpoint_every = 3
seed = 7
scoring = "timing_queue"
"""
CASES = [
    "timing-host-killed",
    "broker-cut",
    "scoring-redelivered",
    "database-cut",
    "web-killed-twice",
    "training-worker-killed",
]


class Bench:
    """The cluster, the problem stored in its database, a user and the clients."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.token, problems = on_cluster(cluster, [SLUG])
        from scoring.client import ScoringClient

        accepted = problems[SLUG].accepted_python
        self.fast = min(accepted.values(), key=len)
        self.slow = max(accepted.values(), key=len)
        self.scoring = [
            ScoringClient(url, self.token, timeout=DEADLINE_S, poll_wait=5)
            for url in cluster.web_urls
        ]
        cluster.audit_scoring()

    def groups(self, count: int, pattern: str) -> list[tuple[str, list[str]]]:
        """`count` groups, programs by letter: f fast, s slow, w wrong, - no program."""
        text = {"f": self.fast, "s": self.slow, "w": WRONG, "-": ""}
        return [(SLUG, [text[c] for c in pattern]) for _ in range(count)]

    def job(self, job_id: int) -> tuple[str, str]:
        ((status, worker),) = self.cluster.sql(
            "SELECT status, worker FROM workers_scoringjob WHERE id = %s", [job_id]
        )
        return status, worker


def outcomes(answer: dict) -> list[list[tuple[str, bool]]]:
    return [[(s["verdict"], s["correct"]) for s in g["samples"]] for g in answer["groups"]]


def twice(claims: dict) -> int:
    """Completions beyond the first: a job or part finished more than once."""
    done = [claims["job"].get("done", 0), *(p.get("done", 0) for p in claims["parts"].values())]
    return sum(max(0, n - 1) for n in done)


def scoring_counts(bench: Bench, jobs: list[tuple[int, list, list]], started: float) -> dict:
    """Wait for each (job id, groups, fault-free outcomes); the counts of the table."""
    completed = lost = differing = scored_twice = 0
    for job_id, groups, expected in jobs:
        try:
            answer = bench.scoring[job_id % 2].wait(job_id)
        except TimeoutError:
            lost += 1
            continue
        completed += answer["status"] == "done"
        differing += outcomes(answer) != expected
        claims = bench.cluster.scoring_claims(job_id)
        scored_twice += twice(claims)
        lost += len(claims["parts"]) != len(groups)
    return {
        "jobs": len(jobs),
        "completed": completed,
        "lost": lost,
        "scored twice": scored_twice,
        "results unlike the fault-free run": differing,
        "seconds to the last result": round(time.monotonic() - started, 1),
    }


def case_timing_host_killed(bench: Bench, fault_free: dict) -> dict:
    groups = bench.groups(4, "sf")
    job_id = bench.scoring[0].submit(groups, REWARD)
    hostname = wait_until(
        lambda: bench.job(job_id)[1].split("#")[0] if bench.job(job_id)[0] == "running" else None,
        60,
        "a host to take the job",
    )
    victim = next(h for h in bench.cluster.hosts if h.hostname == hostname)
    victim.kill(signal.SIGKILL)
    killed_at = time.monotonic()
    try:
        want = expected(fault_free, 4, "sf")
        counts = scoring_counts(bench, [(job_id, groups, want)], killed_at)
    finally:
        bench.cluster.start_host(victim)
    counts["killed mid-job"] = 1
    counts["finished on the other host"] = int(not bench.job(job_id)[1].startswith(hostname))
    return counts


def case_broker_cut(bench: Bench, fault_free: dict) -> dict:
    patterns = ["sf", "w", "s-", "f"]
    jobs = []
    for i, pattern in enumerate(patterns):
        groups = bench.groups(1, pattern)
        want = expected(fault_free, 1, pattern)
        jobs.append((bench.scoring[i % 2].submit(groups, REWARD), groups, want))
    wait_until(lambda: any(bench.job(j)[0] == "running" for j, *_ in jobs), 60, "a job to start")
    bench.cluster.cut("broker")
    cut_at = time.monotonic()
    try:
        groups = bench.groups(1, "fw")
        jobs.append(
            (bench.scoring[0].submit(groups, REWARD), groups, expected(fault_free, 1, "fw"))
        )
        time.sleep(max(0.0, CUT_S - (time.monotonic() - cut_at)))
    finally:
        bench.cluster.restore()
    counts = scoring_counts(bench, jobs, time.monotonic())
    counts["posted during the cut"] = 1
    return counts


def case_scoring_redelivered(bench: Bench, fault_free: dict) -> dict:
    job_id = fault_free["job"]
    cluster = bench.cluster
    query = "SELECT status, result::text, finished_at FROM workers_scoringjob WHERE id = %s"
    before = cluster.sql(query, [job_id])
    since = time.time()
    sent = [cluster.send_task("scoring.score_rollouts", [job_id], "timing")]
    parts = cluster.sql("SELECT index FROM workers_scoringpart WHERE job_id = %s", [job_id])
    sent += [cluster.send_task("scoring.score_part", [job_id, i], "timing") for (i,) in parts]
    ended = [wait_until(lambda t=t: cluster.task_outcome(t), 60, f"copy {t}") for t in sent]
    claims = cluster.scoring_claims(job_id, since=since)
    return {
        "messages sent again": len(sent),
        "taken and skipped": sum(line.endswith(("'done'", "'ended'")) for line in ended),
        "claimed again": len(claims["parts"]) + bool(claims["job"]),
        "job rows changed": int(cluster.sql(query, [job_id]) != before),
    }


def log_points(bench: Bench, url: str, points: int, fault) -> dict:
    """`points` points (20 keys) through a MetricsClient to `url`, about 40 s of logging,
    `fault(fraction logged)` called between; then the counts from the database."""
    from runs.client import MetricsClient, create_run
    from runs.models import MetricPoint

    run_id = create_run(url, bench.token, f"faults-{time.time_ns()}", team="bench")
    spool = Path(tempfile.mkdtemp(prefix="codeopt-faults-spool-"))
    client = MetricsClient(url, bench.token, run_id, batch_size=2000, backoff=0.2, spool_dir=spool)
    steps = points // len(KEYS)
    chunk = max(1, steps // 80)
    for step in range(steps):
        client.log(step, {key: step + i / 100 for i, key in enumerate(KEYS)})
        if step % chunk == 0:
            time.sleep(0.5)
            fault(step / steps)
    fault(1.0)
    closed_at = time.monotonic()
    spooled_left = client.close(timeout=300)
    rows = MetricPoint.objects.filter(series__run_id=run_id).values_list(
        "series__key", "step", "value"
    )
    expected = {(key, s): s + i / 100 for i, key in enumerate(KEYS) for s in range(steps)}
    stored: dict[tuple[str, int], float] = {}
    duplicated = 0
    for key, step, value in rows:
        duplicated += (key, step) in stored
        stored[(key, step)] = value
    return {
        "points logged": len(expected),
        "stored": len(stored),
        "lost": sum(1 for k in expected if k not in stored),
        "duplicated": duplicated,
        "wrong values": sum(1 for k, v in stored.items() if expected.get(k) != v),
        "answers 503": client.failed_sends.get("HTTP 503", 0),
        "answers 500": client.failed_sends.get("HTTP 500", 0),
        "sends unreachable": client.failed_sends.get("unreachable", 0),
        "points spooled then replayed": client.spooled_points,
        "batches left in the spool": spooled_left,
        "seconds from the last log to all stored": round(time.monotonic() - closed_at, 1),
    }


def case_database_cut(bench: Bench, points: int) -> dict:
    state: dict[str, float] = {}

    def fault(fraction: float) -> None:
        if fraction >= 1 / 3 and "cut" not in state:
            bench.cluster.cut("database")
            state["cut"] = time.monotonic()
        elif "cut" in state and "restored" not in state:
            if time.monotonic() - state["cut"] >= CUT_S or fraction >= 1.0:
                time.sleep(max(0.0, CUT_S - (time.monotonic() - state["cut"])))
                bench.cluster.restore()
                state["restored"] = time.monotonic()

    try:
        counts = log_points(bench, bench.cluster.web_urls[0], points, fault)
    finally:
        bench.cluster.restore()
    counts["seconds cut"] = round(state["restored"] - state["cut"], 1)
    return counts


def case_web_killed_twice(bench: Bench, points: int) -> dict:
    web = bench.cluster.webs[0]
    kills: list[float] = []
    restarts: list[threading.Thread] = []

    def back() -> None:
        time.sleep(2.0)
        web.start()
        wait_until(web.ready, 60, f"{web.name} to listen again")

    def fault(fraction: float) -> None:
        due = (1 / 3, 2 / 3)
        back_up = not any(thread.is_alive() for thread in restarts)
        if len(kills) < 2 and fraction >= due[len(kills)] and back_up:
            web.kill(signal.SIGKILL)  # mid-stream: requests in flight are cut
            kills.append(fraction)
            restarts.append(threading.Thread(target=back))
            restarts[-1].start()

    counts = log_points(bench, web.url, points, fault)
    for thread in restarts:
        thread.join()
    counts["kills"] = len(kills)
    return counts


def case_training_worker_killed(bench: Bench) -> dict:
    cluster = bench.cluster
    host = cluster.trainers[0]
    reference = cluster.train(TRAIN_TOML, "bench", "fault-free")
    assert cluster.run_ended(reference) == "finished", host.all_output()[-3000:]
    run_id = cluster.train(TRAIN_TOML, "bench", "killed")
    wait_until(lambda: cluster.run_state(run_id)[1] >= 4, 900, "a checkpoint and a step past it")
    version_at_kill = cluster.run_state(run_id)[1]
    host.kill(signal.SIGKILL)
    killed_at, killed_wall = time.monotonic(), time.time()
    checkpoints = cluster.checkpoint_versions(run_id)
    cluster.start_host(host)
    wait_until(
        lambda: cluster.run_state(run_id)[1] > version_at_kill, 600, "the run to train again"
    )
    resumed_s = time.monotonic() - killed_at
    status = cluster.run_ended(run_id)
    resumed_at = checkpoints[-1] if checkpoints else 0
    ((stale,),) = cluster.sql(
        "SELECT count(*) FROM runs_metricpoint p JOIN runs_metricseries s ON s.id = p.series_id"
        " WHERE s.run_id = %s AND p.step > %s AND p.recorded_at < to_timestamp(%s)",
        [run_id, resumed_at, killed_wall],
    )
    want, got = cluster.series_steps(reference), cluster.series_steps(run_id)
    differing = {
        key: {
            "missing": sorted(set(want.get(key, [])) - set(got.get(key, []))),
            "extra": sorted(set(got.get(key, [])) - set(want.get(key, []))),
        }
        for key in sorted(set(want) | set(got))
        if set(want.get(key, [])) != set(got.get(key, []))
    }
    total, distinct = cluster.rollout_counts(run_id)
    return {
        "status": status,
        "killed at step": version_at_kill,
        "resumed from checkpoint": resumed_at,
        "seconds from the kill to training again": round(resumed_s, 1),
        "metric series": len(got),
        "steps missing (against the fault-free run)": sum(
            len(d["missing"]) for d in differing.values()
        ),
        "steps extra": sum(len(d["extra"]) for d in differing.values()),
        "series whose steps differ": differing or "none",
        "points left from the killed attempt past the checkpoint": stale,
        "rollouts stored": total,
        "rollouts stored twice": total - distinct,
        "rollouts of the fault-free run": cluster.rollout_counts(reference)[0],
    }


def fault_free_scoring(bench: Bench) -> dict:
    """With nothing going wrong: one job holding each kind of program once, and from it
    the outcome of each letter of Bench.groups ({"job": its id, letter: outcome})."""
    job_id = bench.scoring[0].submit(bench.groups(1, "fsw-"), REWARD)
    (outcome,) = outcomes(bench.scoring[1].wait(job_id))
    return {"job": job_id, **dict(zip("fsw-", outcome, strict=True))}


def expected(fault_free: dict, groups: int, pattern: str) -> list:
    return [[fault_free[letter] for letter in pattern]] * groups


def table(name: str, counts: dict) -> str:
    lines = [f"### {name}", "", "| count | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in counts.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=CASES, default=CASES)
    parser.add_argument("--points", type=int, default=200_000, help="points logged per case")
    args = parser.parse_args()
    if args.points < len(KEYS):
        parser.error(f"--points: at least {len(KEYS)}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    training = int("training-worker-killed" in args.cases)
    results: dict[str, dict] = {}
    with Cluster(timing_hosts=2, web=2, training_hosts=training) as cluster:
        bench = Bench(cluster)
        fault_free = fault_free_scoring(bench)
        for case in args.cases:
            started = time.monotonic()
            if case == "timing-host-killed":
                counts = case_timing_host_killed(bench, fault_free)
            elif case == "broker-cut":
                counts = case_broker_cut(bench, fault_free)
            elif case == "scoring-redelivered":
                counts = case_scoring_redelivered(bench, fault_free)
            elif case == "database-cut":
                counts = case_database_cut(bench, args.points)
            elif case == "web-killed-twice":
                counts = case_web_killed_twice(bench, args.points)
            else:
                counts = case_training_worker_killed(bench)
            counts["case seconds"] = round(time.monotonic() - started, 1)
            results[case] = counts
            print(table(case, counts), flush=True)
    report("faults", {"points": args.points, "cases": results})


if __name__ == "__main__":
    main()
