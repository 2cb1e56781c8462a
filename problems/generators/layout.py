"""An inferred input layout as plain data, and checking a text against it (plain Python).

A Layout is a list of items read in order (a line, a counted list, counted rows, a grid, a
word), each made of fields; with `tests` set, the input is that count followed by that many
blocks of the items. problems/generators/infer.py reads one from a problem's tests;
problems/generators/infer_runtime.py draws inputs from one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from problems.generators import structure as st


@dataclass
class Field:
    """One position of the input: a token of a line, or the tokens of a list, column, grid."""

    id: str  # "v0", "v1", ... in reading order
    kind: str  # int | float | str
    role: str  # count | size | magnitude | element | cell | word (see docs/generators.md)
    lo: int | float = 0  # numbers: the values' range; strings: the lengths' range
    hi: int | float = 0
    decimals: int = 0  # floats: digits after the point
    alphabet: str = ""  # strings and grid cells: the characters seen
    name: str = ""  # the statement's variable, when matched
    source: str = "observed"  # or "statement", or "pinned" (the same in every test)
    lower: list = field(default_factory=list)  # [[field id, offset]]: value >= that + offset
    upper: list = field(default_factory=list)  # [[field id, offset]]: value <= that + offset
    budget: int = 0  # in a multi-test block: this count's sum over the tests is at most this
    grow_cap: int = 0
    """No stated bound: past SIZE_MAX this integer keeps growing in proportion to SIZE, up to
    this (0: it stops at `hi`). Growth by measurement (problems/generators/growth.py) finds
    how far a problem needs it."""


@dataclass
class Item:
    """One part of a block: a line, a counted list, counted rows, a grid or a word."""

    kind: str  # line | list | rows | grid | word
    fields: list[Field]
    count: str = ""  # list, rows, grid: the field giving how many tokens / lines; word: length
    offset: int = 0  # ... plus this (n - 1 edges)
    width: str = ""  # rows of `width` tokens; grid rows of `width` characters
    inline: bool = False  # rows: each line's first token counts the tokens after it
    shape: str = ""  # permutation | distinct | sorted | increasing | tree | "" (free)
    traits: dict = field(default_factory=dict)  # tree: nodes, base; grid: markers, corners


@dataclass
class Layout:
    items: list[Item]
    tests: Field | None = None  # multi-test: this count first, then that many blocks of items
    constraints: list[str] = field(default_factory=list)  # statement lines read and used
    notes: list[str] = field(default_factory=list)  # what was dropped, capped, or assumed


def fields_of(layout: Layout) -> list[Field]:
    """Every field, the tests count first."""
    return ([layout.tests] if layout.tests else []) + [f for i in layout.items for f in i.fields]


def layout_from_dict(data: dict) -> Layout:
    """A Layout from its `asdict` form (a proposal's provenance)."""
    items = [Item(**{**i, "fields": [Field(**f) for f in i["fields"]]}) for i in data["items"]]
    tests = Field(**data["tests"]) if data.get("tests") else None
    return Layout(items, tests, list(data.get("constraints", [])), list(data.get("notes", [])))


def growth_provenance(layout: Layout, size_max: int) -> dict:
    """What a generator of `layout` says of its growth past size_max: the fields that grow
    (`grows_past_size_max`) and the SIZE past which none does, each at its grow_cap
    (`grows_until`); empty when nothing grows (problems/generators/growth.py reads it)."""
    growing = [f for f in fields_of(layout) if f.grow_cap]
    if not growing:
        return {}
    until = max(math.ceil(size_max * f.grow_cap / max(1, f.hi)) for f in growing)
    return {"grows_past_size_max": [f.id for f in growing], "grows_until": until}


def describe(layout: Layout) -> str:
    """The structure in one line (no ranges, no names): equal for compatible layouts."""
    parts = []
    for item in layout.items:
        cols = " ".join(f"{f.id}:{f.kind}" for f in item.fields)
        lines = item.count + (f"{item.offset:+d}" if item.offset else "")
        text = {
            "line": f"[{cols}]",
            "list": f"{item.count} x {cols}",
            "word": f"word {cols} of length {item.count}",
            "grid": f"{lines} x {item.width} grid",
        }.get(item.kind)
        if item.kind == "rows":
            row = f"{item.width} x {cols}" if item.width else f"({cols})"
            text = f"{lines} lines of " + ("(count, then that many)" if item.inline else row)
        parts.append(text + (f" {item.shape}" if item.shape else ""))
    body = " / ".join(parts)
    return f"{layout.tests.id} tests of: {body}" if layout.tests else body


def shapes_of(layout: Layout) -> list:
    """The layout's items as problems/generators/structure.py shapes (to read a text with)."""
    refs, shapes = {}, []
    for index, item in enumerate(layout.items):
        if item.kind == "line":
            refs.update({f.id: (index, j) for j, f in enumerate(item.fields)})
            shapes.append(("line", len(item.fields)))
        elif item.kind in ("list", "word"):
            shapes.append((item.kind, refs[item.count]))
        else:
            row = ("inline",) if item.inline else ("fixed", len(item.fields))
            if item.width:
                row = ("grid" if item.kind == "grid" else "width", refs[item.width])
            shapes.append(("rows", refs[item.count], item.offset, row))
    return shapes


def violations(layout: Layout, text: str) -> list[str]:
    """What in `text` breaks `layout`: its structure, a value outside its field's range or an
    earlier value it must not pass, a character outside a string's alphabet, a count's sum
    over the tests past its budget. Empty when the text follows the layout."""
    lines = st.lines_of(text)
    shapes = shapes_of(layout)
    tests = layout.tests is not None
    if tests and not (lines and len(lines[0]) == 1 and st.is_int(lines[0][0])):
        return ["no leading tests count"]
    read = st.instances(shapes, [lines], tests)
    if read is None:
        return ["does not follow the layout's structure"]
    blocks, counts, (end,) = read
    if end != len(lines):
        return [f"trailing data after line {end}"]
    found: list[str] = []
    if tests and not layout.tests.lo <= counts[0] <= layout.tests.hi:
        found.append(f"{layout.tests.id}={counts[0]} outside {layout.tests.lo}..{layout.tests.hi}")
    sums: dict[str, int] = {}
    for _, occurrences, _ in blocks:
        scalars: dict = {}
        for item, occurrence in zip(layout.items, occurrences, strict=True):
            found.extend(_item_violations(item, occurrence, scalars, sums))
    for item in layout.items:
        for f in item.fields:
            if f.budget and sums.get(f.id, 0) > f.budget:
                found.append(f"{f.id}: sum {sums[f.id]} over the tests, budget {f.budget}")
    return found


def split(item: Item, occurrence) -> dict[str, list[str]]:
    """{field id: tokens} of one occurrence of `item` (as problems/generators/structure.py
    reads it: a line's tokens, a list, rows, a grid's row strings, a word)."""
    ids = [f.id for f in item.fields]
    if item.kind == "line":
        return {fid: [token] for fid, token in zip(ids, occurrence, strict=True)}
    if item.kind == "list":
        return {ids[0]: list(occurrence)}
    if item.kind == "word":
        return {ids[0]: [occurrence]}
    if item.kind == "grid":
        return {ids[0]: [row[0] for row in occurrence]}
    if item.inline:
        return {ids[0]: [r[0] for r in occurrence], ids[1]: [t for r in occurrence for t in r[1:]]}
    if item.width:
        return {ids[0]: [t for r in occurrence for t in r]}
    return {fid: [r[j] for r in occurrence] for j, fid in enumerate(ids)}


def _item_violations(item: Item, occurrence, scalars: dict, sums: dict) -> list[str]:
    """Violations in one occurrence of `item`; a line's numbers join `scalars`. Columns are
    checked in bulk (min and max) unless a bound names an earlier column of the same row."""
    columns = split(item, occurrence)
    found = []
    for f in item.fields:
        same_row = [ref for ref, _ in f.lower + f.upper if ref in columns and ref != f.id]
        if item.kind == "line" or not same_row:
            why = _tokens_violation(f, columns[f.id], scalars)
            found.extend([why] if why else [])
        elif not _rows_keep_bounds(f, columns, same_row, scalars):
            for index, token in enumerate(columns[f.id]):  # name the first row that breaks f
                known = dict(scalars)
                known.update({ref: parse_number(columns[ref][index]) for ref in same_row})
                why = _tokens_violation(f, [token], known)
                if why:
                    found.append(why)
                    break
        if item.kind == "line":
            (token,) = columns[f.id]
            if f.kind != "str" and not found:
                scalars[f.id] = parse_number(token)
            if f.budget:
                sums[f.id] = sums.get(f.id, 0) + (len(token) if f.kind == "str" else int(token))
    why = _shape_violation(item, columns, scalars) if not found else ""
    return found + ([why] if why else [])


def _rows_keep_bounds(f: Field, columns: dict, same_row: list[str], scalars: dict) -> bool:
    """True when every row's token of numeric field f keeps its kind and its bounds, some of
    which name a column of the same row: whole columns parsed at once, no row's message
    built. False when a row may break f (the caller then finds it row by row)."""
    tokens = columns[f.id]
    if f.kind == "str" or f.role == "cell" or not tokens:
        return False
    kind = st.kind_of(tokens)
    if kind == "str" or (f.kind == "int" and kind != "int"):
        return False
    try:
        values = parse_numbers(tokens)
        rows = {ref: parse_numbers(columns[ref]) for ref in same_row}
    except (ValueError, ZeroDivisionError):
        return False
    convert = Fraction if f.kind == "float" else (lambda x: x)
    lo, hi = f.lo, f.hi  # the bounds that do not change from row to row
    for ref, offset in f.lower:
        if ref in scalars:  # a line's value (ids are unique: never a row column)
            lo = max(lo, scalars[ref] + offset)
    for ref, offset in f.upper:
        if ref in scalars:  # a line's value (ids are unique: never a row column)
            hi = min(hi, scalars[ref] + offset)
    lower = [(rows[ref], offset) for ref, offset in f.lower if ref in rows]
    upper = [(rows[ref], offset) for ref, offset in f.upper if ref in rows]
    for index, value in enumerate(values):
        row_lo, row_hi = lo, hi
        for column, offset in lower:
            row_lo = max(row_lo, column[index] + offset)
        for column, offset in upper:
            row_hi = min(row_hi, column[index] + offset)
        if not convert(row_lo) <= value <= convert(row_hi):
            return False
    return True


def _shape_violation(item: Item, columns: dict, scalars: dict) -> str:
    """Why an occurrence breaks what its item keeps: a permutation, distinct or sorted values,
    a tree's edges, a grid's markers and fixed corners ("" when it keeps them)."""
    shape, traits = item.shape, item.traits
    if shape in ("permutation", "permutation0", "distinct", "sorted", "increasing"):
        values = [int(t) for t in columns[item.fields[0].id]]
        base = 0 if shape == "permutation0" else 1
        keeps = {
            "permutation": sorted(values) == list(range(base, base + len(values))),
            "distinct": len(set(values)) == len(values),
            "sorted": values == sorted(values),
            "increasing": values == sorted(set(values)),
        }[shape.rstrip("0")]
        return "" if keeps else f"{item.fields[0].id}: not {shape}"
    if shape == "tree":
        first, second = (item.fields[j].id for j in traits["nodes"])
        nodes = scalars[traits["header"]]
        parent = list(range(nodes + traits["base"]))
        for x, y in zip(columns[first], columns[second], strict=True):
            rx, ry = find_root(parent, int(x)), find_root(parent, int(y))
            if rx == ry:
                return f"{first}, {second}: a cycle, not a tree"
            parent[rx] = ry
        return ""
    if item.kind == "grid" and columns[item.fields[0].id]:
        rows = columns[item.fields[0].id]
        text = "".join(rows)
        for ch, total in traits["markers"].items():
            if text.count(ch) != total:
                return f"{item.fields[0].id}: {text.count(ch)} of {ch!r}, {total} wanted"
        spots = {"top-left": (0, 0), "top-right": (0, -1), "bottom-left": (-1, 0)}
        spots["bottom-right"] = (-1, -1)
        for corner, ch in traits["corners"].items():
            r, c = spots[corner]
            if rows[r] and rows[r][c] != ch:
                return f"{item.fields[0].id}: {corner} is {rows[r][c]!r}, not {ch!r}"
    return ""


def find_root(parent: list[int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _tokens_violation(f: Field, tokens: list[str], known: dict) -> str:
    """Why some of `tokens` (all of field f) break its range, kind or alphabet ("" if none)."""
    if not tokens:
        return ""
    if f.kind == "str" or f.role == "cell":
        bad = set("".join(tokens)) - set(f.alphabet)
        if bad:
            return f"{f.id}: characters {sorted(bad)} outside the alphabet"
        lengths = [len(t) for t in tokens]
        if f.role not in ("word", "cell") and not f.lo <= min(lengths) <= max(lengths) <= f.hi:
            return f"{f.id}: lengths {min(lengths)}..{max(lengths)} outside {f.lo}..{f.hi}"
        return ""
    kind = st.kind_of(tokens)
    if kind == "str" or (f.kind == "int" and kind != "int"):
        return f"{f.id}: a token that is not a {f.kind}"
    values = [int(t) for t in tokens] if kind == "int" else [Fraction(t) for t in tokens]
    lo, hi = f.lo, f.hi
    for ref, offset in f.lower:
        if ref in known:
            lo = max(lo, known[ref] + offset)
    for ref, offset in f.upper:
        if ref in known:
            hi = min(hi, known[ref] + offset)
    if f.kind == "float":
        lo, hi = Fraction(lo), Fraction(hi)
    low, high = min(values), max(values)
    return "" if lo <= low and high <= hi else f"{f.id}: {low}..{high} outside {lo}..{hi}"


def parse_number(token: str):
    """An int token as int (fast), a float token as an exact Fraction."""
    return int(token) if st.is_int(token) else Fraction(token)


def parse_numbers(tokens: list[str]) -> list:
    """`parse_number` of each token; a column of ints (one kind check) is read by `int`
    alone, with no check per token."""
    if st.kind_of(tokens) == "int":
        return list(map(int, tokens))
    return [parse_number(t) for t in tokens]
