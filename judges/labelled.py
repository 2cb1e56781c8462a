"""The labelled pair set (judges/labelled_pairs.jsonl, written for this project) and the
analyzer's accuracy on it: per category and overall, with the confusion matrix. Used by the
accuracy test and benchmarks/judge_analyzer.py."""

from __future__ import annotations

import json
from pathlib import Path

from judges.analyzer import classify
from judges.categories import CATEGORIES

LABELLED = Path(__file__).resolve().parent / "labelled_pairs.jsonl"
HOLDOUT = Path(__file__).resolve().parent / "labelled_pairs_holdout.jsonl"
"""Written without sight of the analyzer, never used to tune it: the honest accuracy."""
UNSEEN = Path(__file__).resolve().parent / "labelled_pairs_unseen.jsonl"
"""Written apart from the analyzer's rules (from the category definitions only), in varied
styles, 6 pairs per category on 31 of the built-in pack's problems, each pair checked on the
problem's tests (tests/judges/test_unseen_pairs.py); kept out of development."""


def load(path: Path = LABELLED) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def accuracy(pairs: list[dict]) -> dict:
    """{overall, per_category: {category: {pairs, correct, accuracy}}, confusion, misses}."""
    confusion = {c: dict.fromkeys(CATEGORIES, 0) for c in CATEGORIES}
    misses = []
    for pair in pairs:
        verdict = classify(pair["baseline"], pair["optimized"])
        confusion[pair["category"]][verdict.category] += 1
        if verdict.category != pair["category"]:
            misses.append(
                {"id": pair["id"], "label": pair["category"], "analyzer": verdict.category,
                 "rationale": verdict.rationale}
            )  # fmt: skip
    per_category = {}
    for category, row in confusion.items():
        total = sum(row.values())
        if total:
            per_category[category] = {
                "pairs": total,
                "correct": row[category],
                "accuracy": row[category] / total,
            }
    correct = sum(v["correct"] for v in per_category.values())
    return {
        "pairs": len(pairs),
        "overall": correct / len(pairs) if pairs else None,
        "per_category": per_category,
        "confusion": confusion,
        "misses": misses,
    }
