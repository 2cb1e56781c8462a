"""The built-in judge's decision: measured evidence first (judges/evidence.py), the syntax
trees' differences (judges/analyzer.py) only to name which complexity change or which
constant-factor change it was, and `unclear` when the two conflict or the evidence is too
weak. Plain Python, no Django. docs/judges.md, "The decision table", is this module as a
table; each verdict's rationale names the row that decided it and the figures it read.

Rows, first match wins (R: the cost ratio baseline/optimized at the largest size; G: how R
moved from the smallest size to the largest; D: the exponent drop; E: the optimized
program's exponent; S: the share of the saving that is input/output):

| # | evidence | verdict |
|---|---|---|
| 0 | not measured (no problem with a generator here) | the syntax rules, said so |
| 1 | the programs print different outputs | unclear |
| 2 | R < 1/1.10: the optimized program does more work | unclear |
| 3 | R ≤ 1.10 and G within 1.15 of 1 | none |
| 4 | G ≥ 1.25, D ≥ 0.15 and R still growing at the largest sizes (×1.3 over the last step, |
|   | or not slower than over the first): a complexity change, and | |
| 4a | ... E ≤ 0.3: its cost hardly grows with the input | math_shortcut |
| 4b | ... the syntax sees a new container with the loops kept | data_structure |
| 4c | ... the syntax says math_shortcut or different_algorithm | that category |
| 4d | ... else: calls × syntax in common ≥ 0.4 / below | algorithmic / different_algorithm |
| 5 | S ≥ 0.5 | io |
| 6 | 0.3 ≤ S < 0.5: the syntax says io / anything else | io / unclear |
| 7 | the syntax says math_shortcut or data_structure | that category |
| 8 | otherwise | constant_factor |
"""

from __future__ import annotations

from judges import analyzer
from judges.analyzer import Verdict
from judges.categories import UNCLEAR
from judges.evidence import Evidence

NONE_BAND = 1.10  # a cost ratio within this factor of 1: no real change
FLAT_GROWTH = 1.15  # ... and a ratio that moved less than this across the sizes
GROWTH = 1.25  # a ratio that grew at least this much across the sizes ...
EXPONENT_DROP = 0.15  # ... with the exponent lower by at least this: a complexity change
STILL_GROWING = 1.3  # a ratio growing this much over the last size step: still changing
SLOWING = 0.95  # a last step below this share of the first: growth flattening (overheads)
FLAT_EXPONENT = 0.3  # an optimized program whose cost hardly grows with SIZE: a closed form
SAME_METHOD = 0.4  # calls in common × syntax in common at least this: the same method
IO_SAVING = 0.5  # at least this share of the saving is input/output: io
IO_MIXED = 0.3  # between this and IO_SAVING: input/output and computation both changed

COMPLEXITY_CATEGORIES = ("algorithmic", "data_structure", "math_shortcut", "different_algorithm")


def _percent(share: float) -> str:
    return f"{max(share, 0.0):.0%}" if share > -0.005 else f"{share:.0%}"


def _figures(evidence: Evidence) -> str:
    parts = [f"cost ratio {evidence.ratio:.2f}× at SIZE {evidence.sizes[-1]}"]
    growth = evidence.ratio_growth
    if growth is not None:
        parts.append(f"{growth:.2f}× across SIZE {evidence.sizes[0]}–{evidence.sizes[-1]}")
    b, o = evidence.baseline.exponent, evidence.optimized.exponent
    if b is not None and o is not None:
        parts.append(f"exponent {b:.2f} → {o:.2f}")
    share = evidence.io_saving_share
    if share is not None:
        parts.append(f"I/O {_percent(share)} of the saving")
    return "; ".join(parts)


def _in_common(b: analyzer.Features, o: analyzer.Features) -> float:
    """The share of calls in common times the share of syntax (node kinds) in common."""
    ignored = {"print", "input"}
    both, either = (b.calls & o.calls) - ignored, (b.calls | o.calls) - ignored
    calls = len(both) / len(either) if either else 1.0
    return calls * analyzer.kinds_similarity(b.node_kinds, o.node_kinds)


def complexity_changed(evidence: Evidence) -> bool:
    """The ratio grew across the sizes with the exponent lower, and it still grows at the
    largest sizes: strongly, or at least as fast as at the smallest (a ratio that grows less
    and less is a constant factor whose fixed overheads are being amortized)."""
    ratios = [r for r in evidence.ratios if r is not None]
    growth, drop = evidence.ratio_growth, evidence.exponent_drop
    if growth is None or drop is None or growth < GROWTH or drop < EXPONENT_DROP:
        return False
    if len(ratios) < 3:
        return True
    first, last = ratios[1] / ratios[0], ratios[-1] / ratios[-2]
    return last >= STILL_GROWING or (last > 1 and last >= SLOWING * first)


def _complexity_verdict(baseline, optimized, evidence, syntax, figures) -> Verdict:
    """Which complexity change it was: the measured shape first, then the syntax."""
    measured = f"complexity change measured ({figures})"
    optimized_exponent = evidence.optimized.exponent
    if optimized_exponent is not None and optimized_exponent <= FLAT_EXPONENT:
        return Verdict(
            "math_shortcut",
            None,
            f"{measured}; the optimized cost hardly grows with the input: a closed form "
            f"({syntax.category}: {syntax.rationale})",
            0.75,
        )
    b, o = analyzer.features(baseline), analyzer.features(optimized)
    if syntax.category == "data_structure" and o.depth >= b.depth:
        return Verdict(syntax.category, syntax.secondary, f"{measured}; {syntax.rationale}", 0.8)
    if syntax.category in ("math_shortcut", "different_algorithm"):
        return Verdict(syntax.category, syntax.secondary, f"{measured}; {syntax.rationale}", 0.7)
    common = _in_common(b, o)
    said = f"the syntax says {syntax.category}: {syntax.rationale}"
    if common >= SAME_METHOD:
        return Verdict(
            "algorithmic",
            syntax.secondary,
            f"{measured}; {common:.0%} in common (calls × syntax): the same method made "
            f"faster ({said})",
            0.6,
        )
    return Verdict(
        "different_algorithm",
        syntax.secondary,
        f"{measured}; {common:.0%} in common (calls × syntax): another method ({said})",
        0.5,
    )


def decide(
    baseline: str,
    optimized: str,
    evidence: Evidence | None,
    why_unmeasured: str = "",
    exponents: tuple[float | None, float | None] = (None, None),
) -> Verdict:
    """The verdict on a pair from its evidence (None or unmeasured: the syntax alone, with
    the evaluation's `exponents` of the two programs when it measured them)."""
    syntax = analyzer.classify(
        baseline, optimized, baseline_exponent=exponents[0], optimized_exponent=exponents[1]
    )
    if evidence is None or not evidence.measured or evidence.ratio is None:
        why = why_unmeasured or (evidence.note if evidence else "") or "not measured"
        return Verdict(
            syntax.category,
            syntax.secondary,
            f"structure only ({why}): {syntax.rationale}",
            min(syntax.confidence, 0.5),
        )
    figures = _figures(evidence)
    ratio, growth = evidence.ratio, evidence.ratio_growth or 1.0
    if evidence.outputs_agree is False:
        return Verdict(UNCLEAR, None, f"the two programs print different outputs; {figures}", 0.0)
    if ratio < 1 / NONE_BAND:
        return Verdict(
            UNCLEAR, None, f"the optimized program executes more instructions; {figures}", 0.0
        )
    if ratio <= NONE_BAND and 1 / FLAT_GROWTH <= growth <= FLAT_GROWTH:
        return Verdict("none", None, f"no real change in cost: {figures}", 0.8)
    if complexity_changed(evidence):
        return _complexity_verdict(baseline, optimized, evidence, syntax, figures)
    share = evidence.io_saving_share
    if share is not None and share >= IO_SAVING:
        return Verdict("io", None, f"input/output: {figures}", 0.8)
    if share is not None and share >= IO_MIXED and syntax.category == "io":
        return Verdict("io", None, f"input/output, as the syntax says: {figures}", 0.6)
    if share is not None and share >= IO_MIXED:
        return Verdict(
            UNCLEAR,
            None,
            f"both input/output and the computation changed ({figures}); the syntax says "
            f"{syntax.category}",
            0.3,
        )
    if syntax.category in ("math_shortcut", "data_structure"):
        return Verdict(
            syntax.category,
            syntax.secondary,
            f"the same complexity at these sizes ({figures}); {syntax.rationale}",
            0.6,
        )
    return Verdict("constant_factor", None, f"the same complexity, less work: {figures}", 0.7)
