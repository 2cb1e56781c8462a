"""Input generators written by a real small local model (the `llm` source, problems/generators/
llm.py) against the product's sandboxed generator validation (problems/generators/validate.py).
smollm2-135m-instruct is served here by llama-cpp-python's OpenAI-compatible server
(lm/local_server.py). No database; the problems one at a time.

For each built-in pack problem: stage 1 (the references verified on the problem's own tests,
as a build does), then the model asked for --count generators (the prompt a build sends: the
statement, the limits and the sample inputs, one aim per generator), then each reply validated
as a build validates it. The pack's hand-written generators are neither shown nor validated.

Figures: per generator its aim, whether the reply held a usable program, whether the program
is valid, the first failed check and the reply's latency; in all the generators asked, the
usable programs, the valid ones and the valid share with its 95% Wilson interval, seconds per
reply (each request, re-asks included), wall seconds, and how many generators each check
rejected first (an unusable reply fails `runs` with the reason it was unusable).

The server is started as lm/local_server.py starts it (llama.cpp's extra weight buffers off:
its AMX path crashes on CPUs that have it), then asked one short question, so that a server
that cannot answer stops the run instead of reading as a 0% share. A request the endpoint
fails (not a reply the model wrote) is counted apart (`endpoint_errors`): the share then is
not the model's.

    .venv/bin/python benchmarks/llm_generators.py [--problems SLUG ...] [--count 3]
        [--threads 2] [--max-tokens 600] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import machine, report  # noqa: E402
from _pack import ROOT, source_problem  # noqa: E402

from lm import local_server  # noqa: E402
from problems.generators.llm import (  # noqa: E402
    PROMPT_VERSION,
    GeneratorLLMSettings,
    propose_generators,
)
from problems.generators.sources import _sample_inputs  # noqa: E402
from problems.generators.validate import CHECKS, validate  # noqa: E402
from problems.pipeline.model import PipelineConfig  # noqa: E402
from problems.pipeline.stages import ProblemBuilder  # noqa: E402
from scripts.readiness import free_port  # noqa: E402

# varied input layouts: a list of numbers, one string, a graph, a grid, an array with range
# queries, many independent queries (the pack's nearest to several test cases)
PROBLEMS = (
    "sort-numbers",
    "string-period",
    "connected-components",
    "grid-steps",
    "range-sum-queries",
    "binomial-queries",
)
REASON_CHARS = 160
CONFIG = PipelineConfig(infer_generators=False, llm_generators=False, slow_target_s=0.3, repeats=2)


def _answers(process, url: str) -> bool:
    """Whether the server answers one short chat completion and still runs after it."""
    body = {
        "model": local_server.DEFAULT_MODEL,
        "messages": [{"role": "user", "content": "Say yes."}],
        "max_tokens": 4,
    }
    request = urllib.request.Request(
        f"{url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            answer.read()
    except OSError:
        return False  # a crash closes the connection before the process is seen gone
    time.sleep(0.5)
    return process.poll() is None


def start_server(threads: int, log: Path) -> tuple[object, str]:
    """(process, base URL) of a local server (lm/local_server.py) that has answered a chat
    completion; RuntimeError when it does not (its endpoint errors would read as 0%)."""
    process, url = local_server.start(free_port(), log, threads=threads)
    if not _answers(process, url):
        process.kill()
        process.wait()
        raise RuntimeError(f"the llm server dies on a completion; see {log}")
    return process, url


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float] | None:
    """The 95% Wilson score interval of successes / trials (None for no trials)."""
    if trials == 0:
        return None
    try:
        from scipy.stats import binomtest
    except ImportError:
        p = successes / trials
        centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
        half = (z / (1 + z * z / trials)) * math.sqrt(
            p * (1 - p) / trials + z * z / (4 * trials * trials)
        )
        return max(0.0, centre - half), min(1.0, centre + half)
    found = binomtest(successes, trials).proportion_ci(0.95, method="wilson")
    return float(found.low), float(found.high)


def first_failed(checks: list[dict]) -> dict | None:
    """The first failed check, in validation order (validate.CHECKS)."""
    failed = {c["name"]: c for c in checks if c["passed"] is False}
    return next((failed[name] for name in CHECKS if name in failed), None)


def one_problem(slug: str, settings: GeneratorLLMSettings, count: int) -> list[dict]:
    """One row per generator asked for on `slug` (none when stage 1 stops the problem: the
    model is not asked; the row then says so)."""
    root = Path(tempfile.mkdtemp(prefix="codeopt-llm-gen-bench-"))
    root.chmod(0o711)
    try:
        problem = source_problem(slug, root)
        problem.generators = {}  # the model's alone
        builder = ProblemBuilder(problem, CONFIG, root, proposers=[])
        started = time.monotonic()
        stopped = builder.verify_references()
        stage1_s = time.monotonic() - started
        if stopped:
            print(f"{slug}: stage 1 stops: {stopped}", flush=True)
            return [{"problem": slug, "stage1_stopped": stopped}]
        proposals = propose_generators(
            slug,
            problem.statement,
            problem.time_limit_s,
            problem.memory_mb,
            _sample_inputs(problem),
            settings,
            count,
        )
        rows = []
        for proposal in proposals:
            started = time.monotonic()
            checked = validate(
                proposal,
                problem,
                CONFIG,
                root,
                builder.correct,
                builder.wrong,
                runs=builder.runs,
            ).as_dict()
            failed = first_failed(checked["checks"])
            row = {
                "problem": slug,
                "name": proposal.name,
                "aim": proposal.provenance.get("aim", ""),
                "usable": bool(proposal.code.strip()),
                "valid": checked["valid"],
                "first_failed": failed["name"] if failed else None,
                "reason": failed["detail"][:REASON_CHARS] if failed else "",
                "latency_s": proposal.provenance.get("latency_s"),
                "attempts": proposal.provenance.get("attempts"),
                "output_tokens": proposal.provenance.get("output_tokens"),
                "validate_s": round(time.monotonic() - started, 1),
                "stage1_s": round(stage1_s, 1),
                "references": {"correct": len(builder.correct), "wrong": len(builder.wrong)},
                "checks": checked["checks"],
                "code": proposal.code,
                "reply": proposal.provenance.get("reply", ""),
                "error": proposal.error,
                "endpoint_error": bool(proposal.error)
                and not proposal.error.startswith("invalid reply:"),
            }
            rows.append(row)
            shown = {k: row[k] for k in ("problem", "name", "aim", "usable", "valid")}
            shown |= {k: row[k] for k in ("first_failed", "reason", "latency_s")}
            print(json.dumps(shown), flush=True)
        return rows
    finally:
        shutil.rmtree(root, ignore_errors=True)


def totals(rows: list[dict], count: int, wall_s: float) -> dict:
    asked = [r for r in rows if "name" in r]
    endpoint_errors = sum(r["endpoint_error"] for r in asked)
    usable = [r for r in asked if r["usable"]]
    valid = [r for r in asked if r["valid"]]
    interval = wilson(len(valid), len(asked))
    attempts = sum(r["attempts"] or 0 for r in asked)
    latency = sum(r["latency_s"] or 0.0 for r in asked)
    return {
        "problems": len({r["problem"] for r in rows}),
        "stopped_at_stage1": {r["problem"]: r["stage1_stopped"] for r in rows if "name" not in r},
        "count_per_problem": count,
        "generators_asked": len(asked),
        "endpoint_errors": endpoint_errors,
        "usable_programs": len(usable),
        "valid": len(valid),
        "valid_share": round(len(valid) / len(asked), 4) if asked else None,
        "valid_share_wilson95": [round(x, 4) for x in interval] if interval else None,
        "valid_share_of_usable": round(len(valid) / len(usable), 4) if usable else None,
        "replies": attempts,
        "s_per_reply": round(latency / attempts, 1) if attempts else None,
        "s_per_generator": round(latency / len(asked), 1) if asked else None,
        "wall_s": round(wall_s),
        "first_failed_check": dict(Counter(r["first_failed"] or "none" for r in asked)),
        "first_failed_check_of_usable": dict(Counter(r["first_failed"] or "none" for r in usable)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), metavar="SLUG")
    parser.add_argument("--count", type=int, default=3, help="Generators asked per problem.")
    parser.add_argument("--threads", type=int, default=2, help="The server's CPU threads.")
    parser.add_argument("--max-tokens", type=int, default=600, help="Per reply.")
    parser.add_argument("--json", type=Path, help="Write every figure and row here.")
    args = parser.parse_args()
    log = ROOT / "var" / "bench" / "llm-generators-server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    process, url = start_server(args.threads, log)
    try:
        settings = GeneratorLLMSettings.from_env(
            {
                "GENERATOR_LLM_BASE_URL": url,
                "GENERATOR_LLM_MODEL": local_server.DEFAULT_MODEL,
                "GENERATOR_LLM_MAX_TOKENS": str(args.max_tokens),
                "GENERATOR_LLM_CONCURRENCY": "1",
                "GENERATOR_LLM_INVALID_RETRIES": "1",
            }
        )
        rows = []
        for slug in args.problems:
            rows += one_problem(slug, settings, args.count)
            if process.poll() is not None:
                print(f"the llm server exited ({process.returncode}): stopped; see {log}")
                break
    finally:
        server_exit = process.poll()
        process.terminate()
        process.wait(timeout=30)
    figures = {
        "model": local_server.DEFAULT_MODEL,
        "prompt_version": PROMPT_VERSION,
        "server_threads": args.threads,
        "server_exited_during_run": server_exit,
        "max_tokens": args.max_tokens,
        "invalid_retries": 1,
        "config": {"slow_target_s": CONFIG.slow_target_s, "repeats": CONFIG.repeats},
        **totals(rows, args.count, time.monotonic() - started),
    }
    brief = ("problem", "name", "aim", "usable", "valid", "first_failed", "reason", "latency_s")
    for row in rows:
        report("llm_generators_generator", {k: row.get(k) for k in (*brief, "stage1_stopped")})
    report("llm_generators", figures)
    if figures["endpoint_errors"]:
        print(f"{figures['endpoint_errors']} endpoint errors: the valid share is not the model's")
    if args.json:
        whole = {"machine": machine(), "argv": sys.argv[1:], "totals": figures, "rows": rows}
        args.json.write_text(json.dumps(whole, indent=2, default=str))


if __name__ == "__main__":
    main()
