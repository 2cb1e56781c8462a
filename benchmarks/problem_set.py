"""Issue 4 figures, on a fresh PostgreSQL database:

1. import throughput (problems/s, tests/s) of a code_contests file of 1,000 synthetic records,
   as JSON lines and as Parquet;
2. the wall time of build_dataset on the built-in pack, and the executions per second it
   reached;
3. database size per 1,000 optimization tests (test rows with their reference runtimes, as
   the build stores them: answers kept, inputs regenerated), beside what storing the inputs
   gzip-compressed would have cost.

    .venv/bin/python benchmarks/problem_set.py [--records 1000] [--slow-target 0.5]
        [--skip-build]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import ROOT, recreate_database, report, setup_django  # noqa: E402

PACK = ROOT / "problems" / "packs" / "core"


def synthetic_records(count: int, seed: int = 4) -> list[dict]:
    """Records shaped like code_contests (sizes near its medians: 1 public, 4 private and
    40 generated tests of ~1 KB, 20 correct and 10 incorrect solutions of ~1.5 KB)."""
    rng = random.Random(seed)

    def text(n: int) -> str:
        return " ".join(str(rng.randint(-(10**9), 10**9)) for _ in range(n // 11)) + "\n"

    def tests(n: int) -> list[dict]:
        return [{"input": text(1000), "output": text(40)} for _ in range(n)]

    def solutions(n: int) -> list[dict]:
        return [{"language": rng.choice([2, 3]), "solution": "x = 1\n" * 250} for _ in range(n)]

    return [
        {
            "name": f"{1000 + i}_A. Synthetic {i}",
            "description": "word " * 400,
            "public_tests": tests(1),
            "private_tests": tests(4),
            "generated_tests": tests(40),
            "solutions": solutions(20),
            "incorrect_solutions": solutions(10),
            "time_limit": {"seconds": 2, "nanos": 0},
            "memory_limit_bytes": 256 * 1024 * 1024,
            "cf_rating": 1200,
            "cf_tags": ["math"],
            "source": 2,
            "difficulty": 7,
            "input_file": "",
            "output_file": "",
        }
        for i in range(count)
    ]


def as_columns(record: dict) -> dict:
    out = dict(record)
    for field in ("public_tests", "private_tests", "generated_tests"):
        out[field] = {k: [row[k] for row in record[field]] for k in ("input", "output")}
    for field in ("solutions", "incorrect_solutions"):
        out[field] = {k: [row[k] for row in record[field]] for k in ("language", "solution")}
    return out


def import_throughput(count: int, folder: Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from problems.models import Problem
    from problems.services import do_import_code_contests

    records = synthetic_records(count)
    jsonl = folder / "synthetic.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    parquet = folder / "synthetic.parquet"
    pq.write_table(pa.Table.from_pylist([as_columns(r) for r in records]), parquet)
    figures = {"records": count, "tests_per_record": 45}
    for label, path in (("jsonl", jsonl), ("parquet", parquet)):
        Problem.objects.filter(source__startswith="code_contests").delete()
        started = time.perf_counter()
        result = do_import_code_contests(path)
        seconds = time.perf_counter() - started
        assert len(result.created) == count and not result.skipped, result.skipped[:3]
        figures[f"{label}_file_mb"] = round(path.stat().st_size / 2**20, 1)
        figures[f"{label}_seconds"] = round(seconds, 1)
        figures[f"{label}_problems_per_s"] = round(count / seconds, 1)
        figures[f"{label}_tests_per_s"] = round(result.tests / seconds, 0)
    Problem.objects.filter(source__startswith="code_contests").delete()
    return figures


def build_pack(slow_target: float) -> dict:
    from problems.services import (
        check_build_request,
        do_create_build,
        do_import_packages,
        do_run_build,
    )

    report_ = do_import_packages(PACK)
    assert not report_.skipped, report_.skipped
    config, slugs = check_build_request({"slow_target_s": slow_target}, [])
    build = do_create_build(config, slugs, started_by="benchmark", queue=False)

    def progress(row) -> None:
        sys.stderr.write(f"\r[{row.progress:6.1%}] {row.stage}\x1b[K")

    build = do_run_build(build.pk, on_update=progress)
    sys.stderr.write("\n")
    return {
        "problems": len(report_.created),
        "slow_target_s": slow_target,
        "wall_s": round(build.wall_seconds, 1),
        "executions": build.executions,
        "executions_per_s": round(build.executions / build.wall_seconds, 2),
        "funnel": build.funnel,
        "dropped": {
            r.problem.slug: r.reason for r in build.problems.select_related("problem") if not r.kept
        },
    }


def table_bytes(names: list[str]) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        total = 0
        for name in names:
            cursor.execute("SELECT pg_total_relation_size(%s)", [name])
            total += cursor.fetchone()[0]
    return total


def optimization_test_size(target: int = 1000) -> dict:
    """Copy the build's optimization tests (and their runtimes) until there are `target`,
    and measure what the tables grew by; regenerate a sample to price stored inputs."""
    from problems.models import ProblemTest, ReferenceRuntime
    from problems.services import materialize_test

    tables = ["problems_problemtest", "problems_referenceruntime"]
    real = list(
        ProblemTest.objects.filter(kind="optimization").select_related("generator", "problem")
    )
    if not real:
        return {"note": "no optimization test: run the build part first"}
    before = table_bytes(tables)
    copies = 0
    while copies < target:
        source = real[copies % len(real)]
        runtimes = list(ReferenceRuntime.objects.filter(test=source))
        clone = ProblemTest.objects.get(pk=source.pk)
        clone.pk = None
        clone.name = f"{source.name}/copy-{copies}"
        clone.save()
        for row in runtimes:
            row.pk = None
            row.test = clone
        ReferenceRuntime.objects.bulk_create(runtimes)
        copies += 1
    after = table_bytes(tables)
    gzip_sizes, raw_sizes = [], []
    with tempfile.TemporaryDirectory() as folder:
        for test in real:
            input_path, _ = materialize_test(test, Path(folder))
            data = input_path.read_bytes()
            raw_sizes.append(len(data))
            gzip_sizes.append(len(gzip.compress(data, 6)))
    per_test_gzip = sum(gzip_sizes) / len(gzip_sizes)
    return {
        "optimization_tests": copies,
        "stored_mb_per_1000": round((after - before) / 2**20 * 1000 / copies, 2),
        "runtimes_per_test": round(
            ReferenceRuntime.objects.filter(test__kind="optimization").count()
            / ProblemTest.objects.filter(kind="optimization").count(),
            1,
        ),
        "inputs_raw_mb_per_1000_if_stored": round(
            sum(raw_sizes) / len(raw_sizes) * 1000 / 2**20, 1
        ),
        "inputs_gzip_mb_per_1000_if_stored": round(per_test_gzip * 1000 / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--slow-target", type=float, default=0.5)
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    recreate_database()
    setup_django()
    figures = {}
    with tempfile.TemporaryDirectory(prefix="codeopt-bench-") as folder:
        figures["import"] = import_throughput(args.records, Path(folder))
    report("problem_set_import", figures["import"])
    if not args.skip_build:
        report("problem_set_build", build_pack(args.slow_target))
        report("problem_set_size", optimization_test_size())


if __name__ == "__main__":
    main()
