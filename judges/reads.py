"""Queries of the judging pages and command: pairs with their verdicts, the category
breakdown per judge beside the paper's, the agreement between judges, and the diff."""

from __future__ import annotations

import difflib

from django.core.paginator import Paginator
from django.db.models import Count
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

from foundation.jobs import shown_status
from foundation.liveness import heartbeats
from foundation.tenancy import team_scoped
from judges.categories import CATEGORIES, PAPER_SHARES, UNCLEAR, VERDICTS
from judges.evidence import Evidence
from judges.models import JudgeBatch, JudgePair, Judgment

JUDGED_KINDS = (JudgePair.Kind.FASTER, JudgePair.Kind.UNMEASURED)
JUDGE_ORDER = ("analyzer", "llm", "human")


def visible_batches(user):
    return team_scoped(JudgeBatch.objects.select_related("owner", "team", "evaluation"), user)


def batch_rows(user, limit: int = 200) -> list[dict]:
    """The newest batches the user can see, with their progress (polled by the page)."""
    batches = visible_batches(user).annotate(pair_count=Count("pairs"))[:limit]
    beats = heartbeats()
    return [
        {
            "id": b.pk,
            "name": b.name,
            "status": shown_status(b, beats)[0],
            "stage": b.stage,
            "judges": b.judges,
            "progress_done": b.progress_done,
            "progress_total": b.progress_total,
            "pairs": b.pair_count,
            "error": shown_status(b, beats)[1],
            "created_at": b.created_at.isoformat(),
        }
        for b in batches
    ]


def _verdicts(pair: JudgePair) -> dict[str, Judgment]:
    return {j.judge: j for j in pair.judgments.all()}


def evidence_view(data: dict | None) -> dict | None:
    """A pair's stored evidence as its diff shows it: a row per size (instructions in
    millions) and the figures the decision read; None when it was not measured."""
    evidence = Evidence.from_dict(data)
    if evidence is None or not evidence.measured:
        return None
    b, o = evidence.baseline, evidence.optimized
    ratios = evidence.ratios
    return {
        "generator": evidence.generator,
        "seed": evidence.seed,
        "largest_size": evidence.sizes[-1],
        "rows": [
            {
                "size": size,
                "baseline_m": b.net[i] / 1e6,
                "baseline_io_m": None if b.io[i] is None else b.io[i] / 1e6,
                "optimized_m": o.net[i] / 1e6,
                "optimized_io_m": None if o.io[i] is None else o.io[i] / 1e6,
                "ratio": ratios[i],
            }
            for i, size in enumerate(evidence.sizes)
        ],
        "baseline_exponent": b.exponent,
        "optimized_exponent": o.exponent,
        "exponent_drop": evidence.exponent_drop,
        "ratio": evidence.ratio,
        "ratio_growth": evidence.ratio_growth,
        "io_share_baseline": b.io_share,
        "io_share_optimized": o.io_share,
        "io_saving_share": evidence.io_saving_share,
        "outputs_agree": evidence.outputs_agree,
        "note": evidence.note,
    }


def pair_rows(batch: JudgeBatch, filters: dict | None = None) -> list[dict]:
    """Each pair with every judge's verdict; `category` and `rationale` are the person's if
    one labelled it, else the LLM's, else the analyzer's. Filters: problem, category, judge
    (the category filter applies to that judge's verdict, or to the shown one)."""
    filters = filters or {}
    pairs = batch.pairs.prefetch_related("judgments").order_by("problem_slug", "pk")
    if filters.get("problem"):
        pairs = pairs.filter(problem_slug=filters["problem"])
    rows = []
    for pair in pairs:
        verdicts = _verdicts(pair)
        shown = next(
            (
                verdicts[j]
                for j in ("human", "llm", "analyzer")
                if j in verdicts and verdicts[j].category
            ),
            None,
        )
        judge = filters.get("judge")
        if judge and judge not in verdicts:
            continue
        if filters.get("category"):
            picked = verdicts.get(judge) if judge else shown
            if picked is None or picked.category != filters["category"]:
                continue
        rows.append(
            {
                "pair": pair.pk,
                "problem": pair.problem_slug,
                "kind": pair.kind,
                "baseline_label": pair.baseline_label,
                "optimized_label": pair.optimized_label,
                "baseline_s": pair.baseline_s,
                "optimized_s": pair.optimized_s,
                "speedup": pair.speedup,
                "baseline_exponent": pair.baseline_exponent,
                "optimized_exponent": pair.optimized_exponent,
                "evidence": evidence_view(pair.evidence),
                "evidence_note": pair.evidence_note,
                "category": shown.category if shown else None,
                "rationale": shown.rationale if shown else "",
                "judges": {
                    name: {
                        "category": v.category or None,
                        "secondary": v.secondary or None,
                        "rationale": v.rationale,
                        "confidence": v.confidence,
                        "error": v.error,
                        "raw": v.raw,
                        "cached": v.cached,
                        "by": v.by,
                    }
                    for name, v in sorted(verdicts.items(), key=lambda kv: JUDGE_ORDER.index(kv[0]))
                },
            }
        )
    return rows


def breakdown(batch: JudgeBatch) -> dict:
    """Per judge: pairs per category among the judged pairs, errors, and the shares beside
    the paper's; plus the pairs left out (within noise, slower)."""
    kinds = {k: batch.pairs.filter(kind=k).count() for k in JudgePair.Kind.values}
    result = {
        "kinds": kinds,
        "paper": PAPER_SHARES,
        "categories": list(CATEGORIES),
        "verdicts": list(VERDICTS),
        "judges": {},
    }
    verdicts = Judgment.objects.filter(pair__batch=batch, pair__kind__in=JUDGED_KINDS)
    for judge in JUDGE_ORDER:
        mine = verdicts.filter(judge=judge)
        if judge not in batch.judges and not mine.exists():
            continue
        counts = {c: mine.filter(category=c).count() for c in CATEGORIES}
        unclear = mine.filter(category=UNCLEAR).count()
        judged = sum(counts.values()) + unclear
        result["judges"][judge] = {
            "categories": counts,
            "unclear": unclear,
            "shares": {c: (n / judged if judged else None) for c, n in counts.items()},
            "judged": judged,
            "errors": mine.exclude(error="").count(),
            "cost": sum(v.cost for v in mine),
            "median_latency_s": _median([v.latency_s for v in mine if v.latency_s]),
            "cached": mine.filter(cached=True).count(),
        }
    return result


def _median(values: list[float]) -> float | None:
    ordered = sorted(values)
    return ordered[(len(ordered) - 1) // 2] if ordered else None


def agreement(batch: JudgeBatch) -> list[dict]:
    """For each two judges that both categorized some pairs: the confusion matrix (rows: the
    first judge's category, columns: the second's) and the share of pairs they agree on."""
    by_pair: dict[int, dict[str, str]] = {}
    for pair_id, judge, category in (
        Judgment.objects.filter(pair__batch=batch, pair__kind__in=JUDGED_KINDS)
        .exclude(category="")
        .values_list("pair_id", "judge", "category")
    ):
        by_pair.setdefault(pair_id, {})[judge] = category
    found = []
    for i, first in enumerate(JUDGE_ORDER):
        for second in JUDGE_ORDER[i + 1 :]:
            both = [v for v in by_pair.values() if first in v and second in v]
            if not both:
                continue
            index = {c: k for k, c in enumerate(VERDICTS)}
            matrix = [[0] * len(VERDICTS) for _ in VERDICTS]
            for verdicts in both:
                matrix[index[verdicts[first]]][index[verdicts[second]]] += 1
            agreed = sum(v[first] == v[second] for v in both)
            found.append(
                {
                    "first": first,
                    "second": second,
                    "pairs": len(both),
                    "agreement": agreed / len(both),
                    "matrix": matrix,
                }
            )
    return found


_FORMATTER = HtmlFormatter(nowrap=True)


def _highlighted_lines(source: str) -> list[str]:
    html = highlight(source, PythonLexer(), _FORMATTER)
    lines = html.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def side_by_side(baseline: str, optimized: str) -> list[dict]:
    """Rows of a side-by-side diff, each side syntax-highlighted HTML (pygments escapes the
    code), with the kind of change: equal, replace, delete (baseline only), insert."""
    left, right = _highlighted_lines(baseline), _highlighted_lines(optimized)
    matcher = difflib.SequenceMatcher(a=baseline.splitlines(), b=optimized.splitlines())
    rows = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        for k in range(max(a1 - a0, b1 - b0)):
            a, b = a0 + k, b0 + k
            rows.append(
                {
                    "tag": tag,
                    "left_no": a + 1 if a < a1 else None,
                    "left": left[a] if a < a1 and a < len(left) else "",
                    "right_no": b + 1 if b < b1 else None,
                    "right": right[b] if b < b1 and b < len(right) else "",
                }
            )
    return rows


def highlight_css() -> str:
    return _FORMATTER.get_style_defs(".diff .code")


PAIRS_PER_PAGE = 10


def review_page(batch: JudgeBatch, filters: dict, number: int, corrected: int | None = None):
    """(page, rows) of the diff review: the filtered pairs, PAIRS_PER_PAGE a page, each row
    with its side-by-side diff and ground truth; the pair just `corrected` stays in view
    (first, marked left_filter) though its new label no longer matches the filter."""
    page = Paginator(pair_rows(batch, filters), PAIRS_PER_PAGE).get_page(number)
    rows = list(page.object_list)
    if corrected and all(r["pair"] != corrected for r in rows):
        rows[:0] = [{**r, "left_filter": True} for r in pair_rows(batch) if r["pair"] == corrected]
    pairs = {p.pk: p for p in batch.pairs.filter(pk__in=[r["pair"] for r in rows])}
    for row in rows:
        pair = pairs[row["pair"]]
        row["diff"] = side_by_side(pair.baseline, pair.optimized)
        row["truth"] = pair.true_category
    return page, rows


def against_truth(batch: JudgeBatch) -> list[dict]:
    """For each judge, over the judged pairs that carry a ground truth (`true_category`):
    its accuracy and the confusion matrix (rows: the truth, columns: the judge's category).
    `unclear` is a column of its own and counts as a miss. [] when the batch has no ground
    truth."""
    index = {c: k for k, c in enumerate(VERDICTS)}
    rows = (
        Judgment.objects.filter(pair__batch=batch, pair__kind__in=JUDGED_KINDS)
        .exclude(pair__true_category="")
        .exclude(category="")
        .values_list("judge", "pair__true_category", "category")
    )
    by_judge: dict[str, list[tuple[str, str]]] = {}
    for judge, truth, category in rows:
        by_judge.setdefault(judge, []).append((truth, category))
    found = []
    for judge in JUDGE_ORDER:
        pairs = by_judge.get(judge)
        if not pairs:
            continue
        matrix = [[0] * len(VERDICTS) for _ in VERDICTS]
        for truth, category in pairs:
            matrix[index[truth]][index[category]] += 1
        right = sum(truth == category for truth, category in pairs)
        found.append(
            {"judge": judge, "pairs": len(pairs), "correct": right,
             "accuracy": right / len(pairs), "matrix": matrix,
             "unclear": sum(category == UNCLEAR for _, category in pairs)}
        )  # fmt: skip
    return found


def human_labels(batch: JudgeBatch) -> list[dict]:
    """The batch's pairs a person labelled, as a labelled pairs file: one dict per pair in the
    shape `manage.py judge --pairs` reads (`category` its ground truth), with the runtimes
    and statement the pair had, the person's rationale and who labelled it. A set grown this
    way can be judged again, or added to judges/labelled_pairs*.jsonl."""
    rows = []
    labelled = Judgment.objects.filter(pair__batch=batch, judge=Judgment.Judge.HUMAN)
    for judgment in labelled.exclude(category="").select_related("pair").order_by("pair_id"):
        pair = judgment.pair
        row = {
            "id": f"batch{batch.pk}-pair{pair.pk}",
            "problem": pair.problem_slug,
            "category": judgment.category,
            "baseline": pair.baseline,
            "optimized": pair.optimized,
            "baseline_s": pair.baseline_s,
            "optimized_s": pair.optimized_s,
            "statement": pair.statement,
            "note": judgment.rationale,
            "labelled_by": judgment.by,
        }
        rows.append({k: v for k, v in row.items() if v not in (None, "")})
    return rows
