"""What waiting on a scoring job by reading its row costs, and how late it learns the job ended.

Three places wait on rows that another process writes: the trainer on its ScoringJob
(scoring.coordinator._PolledScores, every RESULT_POLL_S), the API's long-poll on a job
(scoring.services.wait_for_job, every 0.1 s) and the coordinator on the parts other timing
workers score (PART_POLL_S). This script measures, on a fresh PostgreSQL database:

1. For the two job waits, at look intervals 0.02, 0.1 and 0.5 s: `--jobs` jobs, each marked
   done by another thread after 0.3-0.8 s, as a worker would; the delay from that commit to
   the waiter returning (p50, p95), the queries the waiter sent and the CPU time its thread
   used, per second of waiting.
2. For the coordinator: one look at a job of 8 parts, all running on a live worker (the
   queries it sends and the time they take).

The cost of a wait is then set against what it waits for: a scoring job's wall (31 s p50 for
one group of big-sum, docs/benchmarks.md, "The scoring service ...").

    .venv/bin/python benchmarks/scoring_waits.py [--jobs 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from contextlib import contextmanager

from _harness import make_owner, recreate_database, report, setup_django

INTERVALS = (0.02, 0.1, 0.5)


@contextmanager
def counted_queries():
    """Counts the queries this thread's connection sends inside the block."""
    from django.db import connection

    count = [0]

    def wrapper(execute, sql, params, many, context):
        count[0] += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield count


def finish_later(job_id: int, delay: float, committed: list[float]) -> threading.Thread:
    """Another thread marks the job done after `delay` s (autocommit: done once update
    returns) and notes when."""
    from django.db import connection
    from django.utils import timezone

    from scoring.models import ScoringJob

    def run():
        time.sleep(delay)
        ScoringJob.objects.filter(pk=job_id).update(
            status="done",
            finished_at=timezone.now(),
            result={"groups": [], "sandbox": {}},
        )
        committed.append(time.monotonic())
        connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def measure_wait(kind: str, interval: float, jobs: int, owner) -> dict:
    from scoring import coordinator
    from scoring.models import ScoringJob
    from scoring.services import wait_for_job

    rng = random.Random(7)
    delays, queries, cpu, waited = [], 0, 0.0, 0.0
    coordinator.RESULT_POLL_S = interval
    for _ in range(jobs):
        job = ScoringJob.objects.create(owner=owner, request={"groups": []})
        committed: list[float] = []
        finisher = finish_later(job.pk, rng.uniform(0.3, 0.8), committed)
        start, cpu_start = time.monotonic(), time.thread_time()
        with counted_queries() as count:
            if kind == "trainer":
                coordinator._PolledScores(job.pk, 60.0).result()
            else:
                wait_for_job(job, 30.0, poll_s=interval)
        seen = time.monotonic()
        finisher.join()
        delays.append(seen - committed[0])
        queries += count[0]
        cpu += time.thread_time() - cpu_start
        waited += seen - start
    delays.sort()
    return {
        "waiter": kind,
        "interval_s": interval,
        "late_p50_ms": round(1000 * statistics.median(delays), 1),
        "late_p95_ms": round(1000 * delays[int(0.95 * (len(delays) - 1))], 1),
        "queries_per_s": round(queries / waited, 1),
        "cpu_ms_per_s": round(1000 * cpu / waited, 2),
    }


def measure_coordinator_look(owner) -> dict:
    """One look of the coordinator's wait (do_score_rollouts' loop) at 8 parts all running
    on a worker that beats: the done count, the first failed part, a part to take."""
    from django.utils import timezone

    from foundation.jobs import JobStatus
    from foundation.liveness import WorkerHeartbeat
    from scoring import coordinator
    from scoring.models import ScoringJob, ScoringPart

    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        hostname="other", defaults={"last_seen": now, "booted_at": now}
    )
    job = ScoringJob.objects.create(owner=owner, request={"groups": [{}] * 8})
    ScoringPart.objects.bulk_create(
        ScoringPart(job=job, index=i, status=JobStatus.RUNNING, worker="other", started_at=now)
        for i in range(8)
    )
    looks, seconds, queries = 50, 0.0, 0
    for _ in range(looks):
        start = time.perf_counter()
        with counted_queries() as count:
            job.parts.filter(status=JobStatus.DONE).count()
            job.parts.filter(status=JobStatus.FAILED).first()
            assert coordinator._next_part(job, "me") is None
        seconds += time.perf_counter() - start
        queries += count[0]
    per_look = seconds / looks
    return {
        "queries_per_look": queries / looks,
        "ms_per_look": round(1000 * per_look, 2),
        "busy_share_at_0.1s": round(per_look / (per_look + coordinator.PART_POLL_S), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=20)
    args = parser.parse_args()
    recreate_database()
    setup_django()
    owner, _, _ = make_owner()
    waits = [
        measure_wait(kind, interval, args.jobs, owner)
        for kind in ("trainer", "api long-poll")
        for interval in INTERVALS
    ]
    look = measure_coordinator_look(owner)
    report("scoring_waits", {"jobs": args.jobs, "waits": waits, "coordinator_look": look})


if __name__ == "__main__":
    main()
