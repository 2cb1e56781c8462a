"""The speedup-source categories (PAPER.md section 6); docs/judges.md defines each with
examples. The paper's breakdown of 174 judged pairs is drawn beside every measured one."""

from __future__ import annotations

CATEGORIES = (
    "io",
    "constant_factor",
    "algorithmic",
    "math_shortcut",
    "data_structure",
    "different_algorithm",
    "none",
)

UNCLEAR = "unclear"
VERDICTS = (*CATEGORIES, UNCLEAR)
"""What a judge may answer: a category, or `unclear` when its evidence conflicts or is too
weak to name one (counted as a miss in accuracy, and as an abstention)."""

DEFINITIONS = {
    "io": "faster input/output only: bulk reads, one buffered write; same algorithm",
    "constant_factor": "same algorithm and complexity, less work per step (builtins, hoisting)",
    "algorithmic": "the same approach made asymptotically better (prefix sums, memoization, "
    "two pointers, sorting + binary search)",
    "math_shortcut": "a closed form or number-theory identity replaces iteration",
    "data_structure": "the same algorithm on a better container (set, dict, deque, heap)",
    "different_algorithm": "an entirely different method for the problem",
    "none": "no real change in cost (cosmetic edits)",
}

# PAPER.md s.6: GPT-OSS-120B on 174 (optimized, baseline) pairs; shares of the pairs.
PAPER_SHARES = {
    "io": 0.47,
    "constant_factor": 0.34,
    "algorithmic": 0.06,
    "math_shortcut": 0.06,
    "data_structure": 0.02,
    "different_algorithm": 0.01,
}


def check_category(value, field: str = "category") -> str:
    if value not in CATEGORIES:
        raise ValueError(f"{field}: {value!r} is not one of {', '.join(CATEGORIES)}")
    return value
