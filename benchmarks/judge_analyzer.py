"""The judges' accuracy on the labelled pair sets (judges/labelled.py): the set the syntax rules
were tuned on, the held-out set, the unseen set (the decision table's development set) and the
sealed set (written blind, never used to set a threshold: the honest figure).

For each set: the built-in judge (judges/decide.py: measured evidence first, on the pack
problem's generator, else the syntax rules alone), the syntax rules alone (the former judge),
and with --llm the LLM judge (JUDGE_LLM_* endpoint) given the same evidence. Per judge:
accuracy, `unclear` share (abstentions, counted as misses), per category, the confusion matrix.

Evidence takes about a minute per pair under callgrind; it is kept in --cache by the pair's
content, generator and method, so a second run only decides again.

    .venv/bin/python benchmarks/judge_analyzer.py [--sets unseen,sealed] [--jobs 2]
        [--llm | --local-llm] [--misses]

--local-llm serves smollm2-135m-instruct through llama-cpp-python's server (lm/local_server.py)
for the LLM judge, its replies held to the verdict's schema by a grammar.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _harness import report  # noqa: E402

from judges.decide import decide  # noqa: E402
from judges.evidence import METHOD, Evidence, measure_pair  # noqa: E402
from judges.labelled import SETS, accuracy, load, pack_generator, syntax_verdicts  # noqa: E402

SEED = 1  # the product's seed for evidence (judges/services/evidence.py)


def _key(pair: dict, generator: tuple[str, str]) -> str:
    text = json.dumps([METHOD, pair["baseline"], pair["optimized"], generator[1], SEED])
    return hashlib.sha256(text.encode()).hexdigest()


def _measure(pair: dict, generator: tuple[str, str]) -> dict:
    evidence = measure_pair(
        pair["baseline"], pair["optimized"], generator[1], generator=generator[0], seed=SEED
    )
    return evidence.as_dict()


def evidence_for(pairs: list[dict], cache: Path, jobs: int) -> dict[str, Evidence | None]:
    """Evidence per pair id (None: not a pack problem), measured or from the cache."""
    known = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            row = json.loads(line)
            known[row["key"]] = row["evidence"]
    found: dict[str, Evidence | None] = {}
    todo = []
    for pair in pairs:
        generator = pack_generator(pair["problem"])
        if generator is None:
            found[pair["id"]] = None
            continue
        key = _key(pair, generator)
        if key in known:
            found[pair["id"]] = Evidence.from_dict(known[key])
        else:
            todo.append((pair, generator, key))
    cache.parent.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=jobs) as pool, cache.open("a") as out:
        futures = {pool.submit(_measure, p, g): (p, k) for p, g, k in todo}
        for done, future in enumerate(as_completed(futures), 1):
            pair, key = futures[future]
            data = future.result()
            out.write(json.dumps({"key": key, "id": pair["id"], "evidence": data}) + "\n")
            out.flush()
            found[pair["id"]] = Evidence.from_dict(data)
            print(f"measured {done}/{len(todo)}: {pair['id']}", file=sys.stderr)
    return found


def built_in_verdicts(pairs: list[dict], evidence: dict) -> list[str]:
    return [
        decide(p["baseline"], p["optimized"], evidence[p["id"]], "not a pack problem").category
        for p in pairs
    ]


def llm_verdicts(pairs: list[dict], evidence: dict) -> tuple[list[str], dict]:
    from judges.llm import LLMJudge, LLMSettings, PairText

    settings = LLMSettings.from_env()
    if settings is None:
        raise SystemExit("--llm: set JUDGE_LLM_BASE_URL and JUDGE_LLM_MODEL")
    judge = LLMJudge(settings, seed=0)
    texts = [
        PairText(p.get("statement", ""), p["baseline"], p["optimized"], evidence=evidence[p["id"]])
        for p in pairs
    ]
    started = time.perf_counter()
    results = judge.judge_many(texts)
    verdicts = [r.category or "unclear" for r in results]  # an endpoint failure: no answer
    return verdicts, {
        "model": settings.model,
        "endpoint_errors": sum(1 for r in results if r.error),
        "s_per_pair": round((time.perf_counter() - started) / max(1, len(pairs)), 2),
    }


def _serve_local_model() -> None:
    """Start the local server (stopped when this process exits) and point JUDGE_LLM_* at it."""
    import atexit

    from lm import local_server
    from scripts.readiness import free_port

    log = ROOT / "var" / "bench" / "llm-server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    process, url = local_server.start(free_port(), log, threads=2)
    atexit.register(process.terminate)
    os.environ.update(
        JUDGE_LLM_BASE_URL=url,
        JUDGE_LLM_MODEL=local_server.DEFAULT_MODEL,
        JUDGE_LLM_RESPONSE_FORMAT="json_object_schema",
        JUDGE_LLM_MAX_TOKENS="200",
        JUDGE_LLM_INVALID_RETRIES="1",
        JUDGE_LLM_CONCURRENCY="1",
    )


def _figures(pairs: list[dict], verdicts: list[str]) -> dict:
    found = accuracy(pairs, verdicts)
    return {
        "accuracy": f"{found['correct']}/{found['pairs']} ({found['overall']:.0%})",
        "unclear": f"{found['unclear']}/{found['pairs']} ({found['unclear_share']:.0%})",
        "per_category": {
            c: f"{v['correct']}/{v['pairs']}" for c, v in found["per_category"].items()
        },
        "confusion": found["confusion"],
        "misses": found["misses"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS), help="Comma-separated set names.")
    parser.add_argument("--jobs", type=int, default=2, help="Pairs measured at once.")
    parser.add_argument("--cache", type=Path, default=ROOT / "var" / "bench" / "evidence.jsonl")
    parser.add_argument("--llm", action="store_true", help="Also the LLM judge (JUDGE_LLM_*).")
    parser.add_argument(
        "--local-llm", action="store_true", help="--llm on smollm2-135m-instruct served here."
    )
    parser.add_argument("--misses", action="store_true", help="Print every wrong verdict.")
    args = parser.parse_args()
    if args.local_llm:
        args.llm = True
        _serve_local_model()
    figures = {}
    for name in args.sets.split(","):
        pairs = load(SETS[name])
        evidence = evidence_for(pairs, args.cache, args.jobs)
        judges = {
            "built_in": built_in_verdicts(pairs, evidence),
            "syntax_only": syntax_verdicts(pairs),
        }
        extra = {}
        if args.llm:
            judges["llm"], extra = llm_verdicts(pairs, evidence)
        figures[name] = {
            "pairs": len(pairs),
            "measured": sum(1 for e in evidence.values() if e is not None and e.measured),
            **{judge: _figures(pairs, verdicts) for judge, verdicts in judges.items()},
            **({"llm_run": extra} if extra else {}),
        }
        for judge in judges:
            misses = figures[name][judge].pop("misses")
            if args.misses:
                for miss in misses:
                    print(json.dumps({"set": name, "judge": judge, **miss}), file=sys.stderr)
    report("judge_analyzer", figures)


if __name__ == "__main__":
    main()
