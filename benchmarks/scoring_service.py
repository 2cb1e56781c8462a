"""The scoring service as an external trainer uses it: POST /api/scoring/ and
GET /api/scoring/<id>/?wait= through scoring.client.ScoringClient, against a real daphne on a
fresh PostgreSQL database, with real Celery timing workers on a Redis broker.

Set-up: a problem of the built-in pack built by the construction pipeline with the demo's
settings (`slow_target_s=0.3`, `repeats=2`; cached in var/bench/packs/ by benchmarks/_pack.py)
and stored as a build stores it, the built-in reward configurations, a user with a token.
For each `--workers` count N: one `celery worker -Q timing --concurrency N` (prefork, as
docs/operations.md deploys the timing pool) with CODEOPT_PIN_CORES=1, so each of its N
processes holds a core of its own (workers/process/pinning.py); a warm-up of one small job
per process first (a process materializes a problem's tests on its first job).

1. Scoring efficiency: `--programs` programs (the problem's accepted Python solutions in turn,
   each text made unique by a comment) sent as one job of groups of `--group-size`, so that
   a service that spreads a job's groups over several workers can use them. Efficiency is
   the CPU time spent in the programs themselves over N x the job's wall time (started_at
   to finished_at of its ScoringJob row; `client_efficiency`: over the client's
   submit-to-answer wall instead); `candidate_efficiency` counts the submitted programs
   only, not the references each group re-measures beside them (`reference_timing:
   interleaved`). A program's CPU time is what the sandbox reports for each run
   (RunResult.cpu_s: user + sys of its process tree; a CaseResult's `cpu_samples`, made in
   execution/engine.run_once), summed over every run the scoring does: each
   correctness test, each timing round of each optimization test. The API answers only a
   group's wall `seconds`, so this script starts the workers in `--worker` mode, which wraps
   engine.run_once to add each run's figures per program (sha256 of its text) to a file
   per process (var/bench/scoring-cpu/); nothing else of the worker changes, and the
   figures come from the HTTP answers, the job rows and those files only. The rest of the
   cores' time is sandbox start-up, output checks, the worker's own work, idle cores.
2. Round trip: `--rounds` jobs one after the other, each one group of 8 copies of the
   problem's shortest accepted program, from submit to the answer in hand (p50, p95), with
   the job's queue wait and scoring wall from its row and what the service adds to the
   scoring (`overhead`: round trip - scoring wall); on the first `--workers` count only
   (one group is scored by one worker however many there are). On big-sum a round took
   35-80 s on the project's shared 2-vCPU VM (the group's 7 references are re-measured
   beside the 8 programs): 30 rounds take 20-40 min.

daphne, the database, the client and this script share the machine's cores with the workers.

    .venv/bin/python benchmarks/scoring_service.py [--workers 1,2] [--programs 64]
        [--rounds 30] [--group-size 8] [--problems big-sum] [--reward-config binary-top30]
        [--broker-url redis://127.0.0.1:6379/5]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import (  # noqa: E402
    ROOT,
    bench_env,
    daphne,
    make_owner,
    recreate_database,
    report,
    setup_django,
)

CPU_DIR = ROOT / "var" / "bench" / "scoring-cpu"
WORKER_LOG = ROOT / "var" / "bench-scoring-worker.log"
ROUND_TRIP_PROGRAMS = 8
WORKER_START_S = 120  # a worker imports Django and the app before it says "ready."
STOP_S = 15  # a warm shutdown waits for the task in hand; then a cold one, then SIGKILL


def count_program_cpu(folder: Path) -> None:
    """In a worker process: wrap engine.run_once so that each run's CPU and wall time as the
    sandbox reports them (CaseResult.cpu_samples, wall_samples: RunResult.cpu_s, wall_s) are
    added to this process's totals per program (the sha256 of the program's text: a Python
    artifact is its source), written to `folder`/<pid>.json after every run (a prefork child
    inherits the wrapper and writes its own file)."""
    from execution import engine

    measured_run = engine.run_once
    totals: dict[str, list[float]] = {}  # program -> [runs, cpu_s, wall_s]

    def run_once(artifact, *args, **kwargs):
        result = measured_run(artifact, *args, **kwargs)
        program = totals.setdefault(program_key(Path(artifact).read_bytes()), [0, 0.0, 0.0])
        program[0] += 1
        program[1] += sum(result.cpu_samples)
        program[2] += sum(result.wall_samples)
        path = folder / f"{os.getpid()}.json"
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps(totals))
        os.replace(partial, path)  # the reader never sees half a file
        return result

    engine.run_once = run_once


def program_key(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


def run_worker(concurrency: int) -> None:
    """This script in `--worker` mode: a Celery timing worker whose program runs are counted."""
    count_program_cpu(CPU_DIR)
    from celery.bin.celery import main as celery_main

    sys.argv = [
        "celery",
        "-A",
        "codeopt_site",
        "worker",
        "-l",
        "info",
        "-Q",
        "timing",
        "--pool",
        "prefork",
        "--concurrency",
        str(concurrency),
        "--prefetch-multiplier",
        "1",
        "-n",
        f"bench-scoring-{concurrency}@%h",
        "--purge",  # this broker database's timing queue: messages of an interrupted run
    ]
    celery_main()


def program_totals() -> dict[str, list[float]]:
    """The counted runs of every worker process so far: {program: [runs, cpu_s, wall_s]}."""
    totals: dict[str, list[float]] = {}
    for path in CPU_DIR.glob("*.json"):
        for program, figures in json.loads(path.read_text()).items():
            summed = totals.setdefault(program, [0, 0.0, 0.0])
            for index, value in enumerate(figures):
                summed[index] += value
    return totals


def runs_between(before: dict, after: dict, candidates: set[str]) -> dict[str, float]:
    """Runs, CPU and wall seconds counted between two program_totals, candidates apart from
    the rest (the re-measured references)."""
    spent = {"runs": 0, "candidate_cpu_s": 0.0, "reference_cpu_s": 0.0, "wall_s": 0.0}
    for program, (runs, cpu, wall) in after.items():
        earlier = before.get(program, [0, 0.0, 0.0])
        spent["runs"] += runs - earlier[0]
        spent["candidate_cpu_s" if program in candidates else "reference_cpu_s"] += cpu - earlier[1]
        spent["wall_s"] += wall - earlier[2]
    return spent


@contextlib.contextmanager
def timing_workers(count: int, env: dict[str, str]):
    """`count` pinned timing worker processes (one prefork worker), stopped on the way out."""
    for path in CPU_DIR.glob("*"):
        path.unlink()
    CPU_DIR.mkdir(parents=True, exist_ok=True)
    log = open(WORKER_LOG, "w")  # noqa: SIM115  (closed below, after the worker)
    proc = subprocess.Popen(
        [sys.executable, __file__, "--worker", str(count)],
        cwd=ROOT,
        env={**env, "CODEOPT_PIN_CORES": "1"},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + WORKER_START_S
        while "ready." not in WORKER_LOG.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the timing worker did not start; see {WORKER_LOG}")
            time.sleep(0.2)
        yield
    finally:
        for sig in (signal.SIGTERM, signal.SIGQUIT, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=STOP_S)
                break
            except subprocess.TimeoutExpired:
                continue
        log.close()


def store_problems(slugs: list[str]) -> dict:
    """Import the pack's `slugs` and store their builds (benchmarks/_pack.py, cached) as
    do_run_build stores an outcome; returns {slug: BuiltProblem}."""
    from _pack import PACK, built

    from foundation.jobs import claim, finish
    from problems.models import DatasetBuild, Problem
    from problems.pipeline.model import PipelineConfig
    from problems.services import do_create_build, do_import_packages, do_store_outcome

    config = PipelineConfig(slow_target_s=0.3, repeats=2)  # the demo's build
    work = Path(tempfile.mkdtemp(prefix="codeopt-scoring-bench-"))
    work.chmod(0o711)
    problems = {}
    for slug in slugs:
        imported = do_import_packages(PACK / slug)
        assert not imported.skipped, imported.skipped
        problem = built(slug, config, work)
        assert problem.outcome.kept, f"{slug}: {problem.outcome.reason}"
        build = claim(DatasetBuild, do_create_build(config, [slug], queue=False).pk)
        do_store_outcome(build, Problem.objects.get(slug=slug), problem.outcome)
        finish(build, stage="done", executions=problem.outcome.executions)
        problems[slug] = problem
    return problems


def scored(client, groups: list[tuple[str, list[str]]], reward_config: str) -> dict:
    """Submit one job and wait for it; its answer, client wall and row figures."""
    from scoring.models import ScoringJob

    started = time.perf_counter()
    job_id = client.submit(groups, reward_config)
    answer = client.wait(job_id)
    client_wall = time.perf_counter() - started
    row = ScoringJob.objects.get(pk=job_id)
    return {
        "answer": answer,
        "client_wall_s": client_wall,
        "job_wall_s": row.duration_s,
        "queue_wait_s": row.queue_wait_s,
        "worker": row.worker,
    }


def warm_up(client, count: int, slug: str, program: str, reward_config: str) -> None:
    """One small job per worker process, all at once (each process takes one: prefetch 1).
    Daemon threads: Ctrl-C here does not wait for their long-polls."""
    failures: list[Exception] = []

    def one() -> None:
        try:
            scored(client, [(slug, [program])], reward_config)
        except Exception as exc:  # raised again below, in the main thread
            failures.append(exc)

    threads = [threading.Thread(target=one, daemon=True) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]


def efficiency(client, workers: int, groups, reward_config: str) -> dict:
    candidates = {program_key(p.encode()) for _, programs in groups for p in programs}
    before = program_totals()
    job = scored(client, groups, reward_config)
    spent = runs_between(before, program_totals(), candidates)
    cpu = spent["candidate_cpu_s"] + spent["reference_cpu_s"]
    samples = [s for g in job["answer"]["groups"] for s in g["samples"]]
    return {
        "workers": workers,
        "program_cpu_s": round(cpu, 2),
        "candidate_cpu_s": round(spent["candidate_cpu_s"], 2),
        "reference_cpu_s": round(spent["reference_cpu_s"], 2),
        "program_runs": spent["runs"],
        "sandbox_wall_s": round(spent["wall_s"], 2),
        "job_wall_s": round(job["job_wall_s"], 2),
        "client_wall_s": round(job["client_wall_s"], 2),
        "efficiency": round(cpu / (workers * job["job_wall_s"]), 3),
        "candidate_efficiency": round(spent["candidate_cpu_s"] / (workers * job["job_wall_s"]), 3),
        "client_efficiency": round(cpu / (workers * job["client_wall_s"]), 3),
        "programs_per_s": round(len(samples) / job["client_wall_s"], 2),
        "queue_wait_s": round(job["queue_wait_s"], 3),
        "correct": sum(s["correct"] for s in samples),
        "job_worker": job["worker"],
    }


def quantile(values: list[float], q: float) -> float:
    """Linear interpolation between the closest ranks (the `inclusive` method)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(100 * q) - 1]


def round_trips(client, workers: int, rounds: int, slug: str, program: str, reward_config) -> dict:
    copies = [f"{program}\n# copy {i}\n" for i in range(ROUND_TRIP_PROGRAMS)]
    jobs = [scored(client, [(slug, copies)], reward_config) for _ in range(rounds)]
    for job in jobs:
        assert all(s["correct"] for s in job["answer"]["groups"][0]["samples"]), job["answer"]
    walls = [j["client_wall_s"] for j in jobs]
    scoring = [j["job_wall_s"] for j in jobs]
    # what the service adds to the scoring: the POST, the queue, the long-poll, the answer
    # (the row's times are the host's wall clock: a clock step reads as a negative overhead)
    overhead = [j["client_wall_s"] - j["job_wall_s"] for j in jobs]
    return {
        "workers": workers,
        "rounds": rounds,
        "programs": ROUND_TRIP_PROGRAMS,
        "p50_s": round(quantile(walls, 0.5), 3),
        "p95_s": round(quantile(walls, 0.95), 3),
        "max_s": round(max(walls), 3),
        "scoring_wall_p50_s": round(quantile(scoring, 0.5), 3),
        "queue_wait_p50_ms": round(1000 * quantile([j["queue_wait_s"] for j in jobs], 0.5)),
        "overhead_p50_ms": round(1000 * quantile(overhead, 0.5)),
        "overhead_p95_ms": round(1000 * quantile(overhead, 0.95)),
    }


def batch(problems: dict, programs: int, group_size: int) -> list[tuple[str, list[str]]]:
    """`programs` programs in groups of `group_size`, the groups taking the problems in turn
    and each problem's accepted Python solutions in turn."""
    slugs = list(problems)
    groups, taken = [], dict.fromkeys(slugs, 0)
    for index in range(0, programs, group_size):
        slug = slugs[len(groups) % len(slugs)]
        solutions = problems[slug].accepted_python
        accepted = [solutions[name] for name in sorted(solutions)]
        size = min(group_size, programs - index)
        first = taken[slug]
        texts = [
            f"{accepted[(first + i) % len(accepted)]}\n# sample {first + i}\n" for i in range(size)
        ]  # every text its own: told apart from the references (and each other) when counted
        groups.append((slug, texts))
        taken[slug] += size
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", default="1,2", help="timing worker processes, in turn")
    parser.add_argument("--programs", type=int, default=64, help="programs in the batch")
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=30, help="round trips of a small job")
    parser.add_argument("--problems", nargs="+", default=["big-sum"], help="pack slugs")
    parser.add_argument("--reward-config", default="binary-top30")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)  # in a child
    args = parser.parse_args()
    if args.worker is not None:
        run_worker(args.worker)
        return
    counts = [int(n) for n in args.workers.split(",")]
    cores = len(os.sched_getaffinity(0))
    if any(n < 1 or n > cores for n in counts):
        parser.error(f"--workers: each count between 1 and the {cores} cores here")
    if args.programs < 1 or args.group_size < 1 or args.rounds < 1:
        parser.error("--programs, --group-size and --rounds: at least 1")
    # a SIGTERM ends this script as Ctrl-C does: through the finally blocks that stop workers
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    env = {"CELERY_BROKER_URL": args.broker_url, "REDIS_URL": ""}
    recreate_database()
    setup_django(**env)
    from rewards.services import do_load_configs
    from scoring.client import ScoringClient

    do_load_configs()
    _, _, token = make_owner()
    problems = store_problems(args.problems)
    slug = args.problems[0]
    trivial = min(problems[slug].accepted_python.values(), key=len)
    groups = batch(problems, args.programs, args.group_size)
    results, round_trip = [], None
    with daphne(**env) as url:
        # long-polls of 10 s, not the client's default 30: daphne's SIGTERM waits for the
        # requests in flight, and the harness gives it 15 s (an answer comes as soon either way)
        client = ScoringClient(url, token, timeout=1800.0, poll_wait=10.0)
        for count in counts:
            with timing_workers(count, bench_env(**env)):
                warm_up(client, count, slug, trivial, args.reward_config)
                results.append(efficiency(client, count, groups, args.reward_config))
                if round_trip is None:
                    round_trip = round_trips(
                        client, count, args.rounds, slug, trivial, args.reward_config
                    )
    report(
        "scoring_service",
        {
            "problems": args.problems,
            "reward_config": args.reward_config,
            "programs": args.programs,
            "groups": len(groups),
            "group_size": args.group_size,
            "rounds": args.rounds,
            "efficiency": results,
            "round_trip": round_trip,
        },
    )


if __name__ == "__main__":
    main()
