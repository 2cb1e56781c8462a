"""The decision table (judges/decide.py, docs/judges.md): each row reached by evidence made to
sit just inside or just outside its threshold, so that a moved threshold or a reordered row
fails here; an unmeasured pair falls back to structure and says so."""

from __future__ import annotations

import pytest

from judges import decide as table
from judges.decide import decide
from judges.evidence import Evidence, ProgramEvidence

LOOP = "n = int(input())\nt = 0\nfor i in range(n):\n    t += i\nprint(t)\n"
FORMULA = "n = int(input())\nprint(n * (n - 1) // 2)\n"
WHILE = "n = int(input())\nt = 0\ni = 0\nwhile i < n:\n    t += i\n    i += 1\nprint(t)\n"
SCAN = (
    "n = int(input())\na = input().split()\nq = int(input())\nfor _ in range(q):\n"
    "    print(a.count(input()))\n"
)
COUNTER = (
    "from collections import Counter\nn = int(input())\nc = Counter(input().split())\n"
    "q = int(input())\nfor _ in range(q):\n    print(c[input()])\n"
)


def evidence(
    base: list[float],
    opt: list[float],
    base_io: list[float] | None = None,
    opt_io: list[float] | None = None,
    sizes=(25, 50, 100),
    exponents=(None, None),
    agree=True,
) -> Evidence:
    def side(net, io, exponent):
        return ProgramEvidence(net, io or [None] * len(net), exponent)

    made = Evidence(
        generator="worst.py",
        sizes=list(sizes),
        baseline=side(base, base_io, exponents[0]),
        optimized=side(opt, opt_io, exponents[1]),
        outputs_agree=agree,
    )
    return Evidence.from_dict(made.as_dict())  # what a stored pair reads back


def growing(ratio_at_top: float, growth: float) -> tuple[list[float], list[float], tuple]:
    """Baseline and optimized costs over 3 sizes with this top ratio and this growth."""
    import math

    step = math.sqrt(growth)
    ratios = [ratio_at_top / growth, ratio_at_top / step, ratio_at_top]
    opt = [1e7, 2e7, 4e7]
    base = [o * r for o, r in zip(opt, ratios, strict=True)]
    b_exp = math.log(base[-1] / base[0]) / math.log(4)
    return base, opt, (b_exp, 1.0)


def test_unmeasured_pairs_fall_back_to_structure_and_say_why():
    verdict = decide(LOOP, FORMULA, None, "no problem 'x' with an input generator here")
    assert verdict.category == "math_shortcut"
    assert verdict.rationale.startswith("structure only (no problem 'x' with an input generator")
    assert verdict.confidence <= 0.5


def test_different_outputs_and_more_work_are_unclear():
    base, opt, exps = growing(2.0, 1.0)
    assert decide(LOOP, WHILE, evidence(base, opt, exponents=exps, agree=False)).category == (
        "unclear"
    )
    slower = [c * 1.2 for c in base]
    verdict = decide(LOOP, WHILE, evidence(base, [b * 1.12 for b in base]))
    assert verdict.category == "unclear" and "more instructions" in verdict.rationale
    assert decide(LOOP, WHILE, evidence(slower, slower)).category == "none"


@pytest.mark.parametrize(("ratio", "expected"), [(1.09, "none"), (1.3, "constant_factor")])
def test_a_flat_ratio_near_one_is_none_and_above_the_band_a_constant_factor(ratio, expected):
    base, opt, exps = growing(ratio, 1.0)
    assert decide(LOOP, WHILE, evidence(base, opt, exponents=exps)).category == expected


NESTED = (
    "n = int(input())\na = list(map(int, input().split()))\nc = 0\nfor i in range(n):\n"
    "    for j in range(i):\n        if a[i] == a[j]:\n            c += 1\nprint(c)\n"
)
COUNTED = (
    "n = int(input())\na = list(map(int, input().split()))\nseen = {}\nc = 0\nfor x in a:\n"
    "    c += seen.get(x, 0)\n    seen[x] = seen.get(x, 0) + 1\nprint(c)\n"
)
DOUBLED = LOOP.replace("t += i", "t += i + i - i")  # the same calls and loops


def test_a_growing_ratio_is_a_complexity_change_named_by_the_measured_shape_then_the_syntax():
    base, opt, exps = growing(8.0, 4.0)
    verdict = decide(SCAN, COUNTER, evidence(base, opt, exponents=exps))
    assert verdict.category == "data_structure", verdict.rationale
    assert "complexity change measured" in verdict.rationale and "4.00×" in verdict.rationale
    # a new container and shallower loops: the approach changed, not only the container
    assert decide(NESTED, COUNTED, evidence(base, opt, exponents=exps)).category == "algorithmic"
    # an optimized cost that stays flat while the baseline's grows: a closed form, whatever
    # the syntax says (here it sees loops replaced by a formula too)
    flat = decide(LOOP, FORMULA, evidence(base, opt, exponents=(exps[0], 0.05)))
    assert flat.category == "math_shortcut" and "closed form" in flat.rationale
    for exponent, expected in ((0.29, "math_shortcut"), (0.31, "data_structure")):
        measured = evidence(base, opt, exponents=(exps[0], exponent))
        assert decide(SCAN, COUNTER, measured).category == expected
    # the syntax names no method: the share of calls in common tells the same method from another
    same = decide(LOOP, DOUBLED, evidence(base, opt, exponents=exps))
    assert same.category == "algorithmic" and same.confidence < verdict.confidence
    assert decide(LOOP, WHILE, evidence(base, opt, exponents=exps)).category == (
        "different_algorithm"
    )
    # a ratio that grows less and less (fixed overheads amortized): a constant factor
    base = [5e7, 1.4e8, 3.9e8]  # ratios 5, 7, 7.8: +40% then +11%, the exponent 0.32 lower
    opt = [1e7, 2e7, 5e7]
    assert decide(LOOP, DOUBLED, evidence(base, opt, exponents=(1.48, 1.16))).category == (
        "constant_factor"
    )
    steady = [5e7, 1.4e8, 5e8]  # ratios 5, 7, 10: +40% then +43%, still growing
    assert decide(LOOP, DOUBLED, evidence(steady, opt, exponents=(1.66, 1.16))).category == (
        "algorithmic"
    )
    # growth below the threshold is not a complexity change
    base, opt, exps = growing(8.0, table.GROWTH * 0.95)
    assert decide(LOOP, DOUBLED, evidence(base, opt, exponents=exps)).category == (
        "constant_factor"
    )


def test_the_io_share_of_the_saving_decides_io_and_a_middle_share_is_unclear():
    base, opt = [3e7, 6e7, 1.2e8], [1e7, 2e7, 4e7]
    saving = 8e7  # at the largest size

    def with_share(share: float) -> str:
        base_io = [0.0, 0.0, 0.1e8 + share * saving]
        opt_io = [0.0, 0.0, 0.1e8]
        return decide(LOOP, WHILE, evidence(base, opt, base_io, opt_io, exponents=(1, 1))).category

    assert with_share(table.IO_SAVING + 0.02) == "io"
    assert with_share(table.IO_SAVING - 0.02) == "unclear"
    # the same middle share where the syntax sees only the reading change: io
    bulk = LOOP.replace("n = int(input())", "import sys\nn = int(sys.stdin.readline())")
    base_io, opt_io = [0.0, 0.0, 0.1e8 + 0.4 * saving], [0.0, 0.0, 0.1e8]
    mixed = evidence(base, opt, base_io, opt_io, exponents=(1, 1))
    assert decide(LOOP, bulk, mixed).category == "io"
    assert with_share(table.IO_MIXED - 0.02) == "constant_factor"
