"""Checking a text against an inferred layout reads whole columns at once (a SIZE-100 input
holds over a million tokens); the answers must be those of the token-by-token, row-by-row
rules they replace, on generated texts that keep and that break the layout."""

from __future__ import annotations

import random

import pytest

from problems.generators import layout as layout_module
from problems.generators import structure as st
from problems.generators.layout import Field, Item, Layout, parse_number, parse_numbers, violations

ALPHABET = ["0", "1", "7", "9", "-", ".", "a", "٣", " ", "_", "+"]


def random_token(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.5:
        return str(rng.randint(-(10**6), 10**6))
    if shape < 0.7:
        return f"{rng.randint(-99, 99)}.{rng.randint(0, 999):03d}"
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 4)))


@pytest.mark.parametrize("seed", range(4))
def test_a_columns_numbers_read_at_once_are_its_tokens_read_one_by_one(seed):
    rng = random.Random(seed)
    kinds = set()
    for _ in range(3000):
        tokens = [random_token(rng) for _ in range(rng.randint(0, 6))]
        if rng.random() < 0.6:  # mostly numbers, so that int and float columns are common
            tokens = [t for t in tokens if st.kind_of([t]) != "str"]
        kind = st.kind_of(tokens)
        kinds.add(kind)
        try:
            expected = [parse_number(t) for t in tokens]
        except ValueError:
            with pytest.raises(ValueError):
                parse_numbers(tokens)
            continue
        assert parse_numbers(tokens) == expected, tokens
        assert [type(v) for v in parse_numbers(tokens)] == [type(v) for v in expected]
    assert kinds == {"int", "float", "str"}


def queries_layout(kind: str = "int") -> Layout:
    """n, then n rows "l r" with 1 <= l <= r <= n (l's bound names r, r's names l: bounds on
    the same row's other column); kind float: l and r may be decimals."""
    n = Field("v0", "int", "count", 1, 50)
    left = Field("v1", kind, "element", 1, 10**9, upper=[["v0", 0], ["v2", 0]])
    right = Field("v2", kind, "element", 1, 10**9, lower=[["v1", 0]], upper=[["v0", 0]])
    return Layout(items=[Item("line", [n]), Item("rows", [left, right], count="v0")])


def row_by_row(monkeypatch_target, layout: Layout, text: str) -> list[str]:
    """violations() with the whole-column shortcut off: every row checked on its own."""
    with monkeypatch_target.context() as patch:
        patch.setattr(layout_module, "_rows_keep_bounds", lambda *args: False)
        return violations(layout, text)


def random_queries(rng: random.Random) -> str:
    n = rng.randint(1, 12)
    rows = []
    for _ in range(n):
        left = rng.randint(1, n)
        right = rng.randint(left, n)
        rows.append([str(left), str(right)])
    for _ in range(rng.choice([0, 0, 1, 2])):  # break some rows: swapped, past n, not ints
        row = rng.choice(rows)
        spot = rng.randrange(2)
        row[spot] = rng.choice(
            [str(n + 1), "0", str(-rng.randint(1, 5)), "1.5", f"{n}.5", "x", row[1 - spot]]
        )
    return "\n".join([str(n), *(" ".join(r) for r in rows)]) + "\n"


@pytest.mark.parametrize("kind", ["int", "float"])
def test_row_bounds_checked_by_columns_give_the_row_by_rows_answers(kind, monkeypatch):
    rng = random.Random(11)
    layout = queries_layout(kind)
    kept = broken = 0
    for _ in range(1500):
        text = random_queries(rng)
        try:
            expected = row_by_row(monkeypatch, layout, text)
        except ValueError as exc:  # a junk token a bound refers to: the same error either way
            with pytest.raises(ValueError, match=str(exc)):
                violations(layout, text)
            continue
        assert violations(layout, text) == expected, text
        kept += not expected
        broken += bool(expected)
    assert kept > 300 and broken > 300  # both kinds of text were tried


def test_a_row_whose_left_passes_its_right_is_named():
    text = "3\n1 2\n3 2\n2 3\n"
    assert violations(queries_layout(), text) == ["v1: 3..3 outside 1..2", "v2: 2..2 outside 3..3"]
