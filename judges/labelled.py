"""The labelled pair sets and a judge's accuracy on them: per category and overall, the
confusion matrix (rows: the label; columns: the verdict, `unclear` one of them) and the
abstentions. Used by the accuracy tests and benchmarks/judge_analyzer.py."""

from __future__ import annotations

import json
from pathlib import Path

from judges.analyzer import classify
from judges.categories import CATEGORIES, UNCLEAR, VERDICTS

HERE = Path(__file__).resolve().parent
PACK = HERE.parent / "problems" / "packs" / "core"
LABELLED = HERE / "labelled_pairs.jsonl"
"""Written for this project; the syntax rules (judges/analyzer.py) were tuned on it."""
HOLDOUT = HERE / "labelled_pairs_holdout.jsonl"
"""Written without sight of the analyzer, never used to tune it."""
UNSEEN = HERE / "labelled_pairs_unseen.jsonl"
"""Written apart from the analyzer's rules (from the category definitions only), in varied
styles, 6 pairs per category on 31 of the built-in pack's problems, each pair checked on the
problem's tests (tests/judges/test_pack_pair_sets.py). The decision table's thresholds
(judges/decide.py) were set on its measured evidence: a development set since."""
BLIND = HERE / "labelled_pairs_blind.jsonl"
"""Written blind (without sight of the syntax rules, the decision table, the evidence code or
the other sets), 7 pairs per category on the built-in pack's problems, each checked on the
problem's tests and its speedup measured on the problem's worst-case generator. The decision
table scored 71% on it, unseen; it was then used to revise the table: development since."""
SEALED = HERE / "labelled_pairs_sealed.jsonl"
"""Written blind as BLIND was, after the table was revised; never used to set a threshold: the
honest figure of that table (76%)."""
SEALED2 = HERE / "labelled_pairs_sealed2.jsonl"
"""Written blind as BLIND was (7 pairs per category over all 33 pack problems, each checked
on the problem's tests and timed on its worst-case generator), after the table of SEALED's
figure: the honest figure."""
SETS = {
    "labelled": LABELLED,
    "held_out": HOLDOUT,
    "unseen": UNSEEN,
    "blind": BLIND,
    "sealed": SEALED,
    "sealed2": SEALED2,
}


def load(path: Path = LABELLED) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def pack_generator(slug: str) -> tuple[str, str] | None:
    """(name, code) of a built-in pack problem's worst-case generator (else its first), or
    None when `slug` is not a pack problem with a generator."""
    folder = PACK / slug / "generators"
    found = sorted(folder.glob("*.py")) if folder.is_dir() else []
    if not found:
        return None
    chosen = next((p for p in found if p.stem.startswith("worst")), found[0])
    return chosen.name, chosen.read_text()


def syntax_verdicts(pairs: list[dict]) -> list[str]:
    """The syntax rules alone on each pair (judges/analyzer.py)."""
    return [classify(p["baseline"], p["optimized"]).category for p in pairs]


def accuracy(pairs: list[dict], verdicts: list[str] | None = None) -> dict:
    """{overall, unclear, per_category: {category: {pairs, correct, accuracy}}, confusion,
    misses} of `verdicts` (default: the syntax rules') against the pairs' labels; an
    `unclear` verdict counts as a miss and as an abstention."""
    verdicts = syntax_verdicts(pairs) if verdicts is None else verdicts
    confusion = {c: dict.fromkeys(VERDICTS, 0) for c in CATEGORIES}
    misses = []
    for pair, verdict in zip(pairs, verdicts, strict=True):
        confusion[pair["category"]][verdict] += 1
        if verdict != pair["category"]:
            misses.append({"id": pair["id"], "label": pair["category"], "verdict": verdict})
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
    unclear = sum(row[UNCLEAR] for row in confusion.values())
    return {
        "pairs": len(pairs),
        "correct": correct,
        "overall": correct / len(pairs) if pairs else None,
        "unclear": unclear,
        "unclear_share": unclear / len(pairs) if pairs else None,
        "per_category": per_category,
        "confusion": confusion,
        "misses": misses,
    }
