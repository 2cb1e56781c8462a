"""The `inferred` generator source: read an input's layout from a problem's own tests and its
statement, and write a generator for it (plain Python, no Django, no model).

    infer_layout(inputs, statement) -> Layout | Refusal
    generator_code(layout, size_max=100) -> str     # python3 -P gen.py SEED SIZE
    propose(inputs, statement, name="inferred") -> Proposal

Steps of `infer_layout`:
1. find the token structure every input shares (problems/generators/structure.py): lines,
   counted lists and rows, grids, words, and a leading T of T blocks;
2. read each position's kind and observed range (ints, floats, strings: alphabet, lengths);
3. refuse what the data shows but a generator cannot keep: names shared between positions
   (a graph or a roster of names), pairs of node numbers that are not a tree or ranges;
4. keep what it can: permutations of 1..n, trees on n nodes (n - 1 pairs), distinct or sorted
   sequences, values bounded by an earlier count, a grid's markers and fixed corners;
5. match the statement's constraint lines (problems/generators/constraints.py) to positions
   in reading order, kept only when every observed value fits them;
6. bound every count: the statement's limit, else UNSTATED_GROWTH x the largest seen (at most
   UNSTATED_CAP), never past MAX_COUNT or MAX_TOKENS tokens for one item;
7. mark what no statement line bounds (counts, lengths, numbers alone on a line) as growing
   past SIZE_MAX (`Field.grow_cap`): a build then grows them by measurement
   (problems/generators/growth.py). A stated bound never grows.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from fractions import Fraction
from pathlib import Path

from problems.generators import Proposal, Refusal
from problems.generators import structure as st
from problems.generators.constraints import Constraints, read_constraints
from problems.generators.layout import (
    Field,
    Item,
    Layout,
    describe,
    growth_provenance,
    parse_numbers,
    split,
    violations,
)
from problems.generators.semantics import SemanticChecks

__all__ = [
    "Layout",
    "Refusal",
    "describe",
    "generator_code",
    "infer_layout",
    "propose",
    "violations",
]

MAX_COUNT = 10**6
"""A count's largest value whatever the statement allows: one item of 10^6 tokens takes the
generator about a second, well inside the pipeline's generator_cpu_s."""
MAX_TOKENS = 2 * 10**6
"""Tokens (or grid cells) one item may print at the largest SIZE (rows x width included)."""
UNSTATED_GROWTH = 10
"""A count no statement line bounds grows to this many times the largest one observed..."""
UNSTATED_CAP = 10**5
"""... but not past this (unless a test already holds more)."""
RUNTIME = Path(__file__).with_name("infer_runtime.py")
TYPE_CAPS = (2**31 - 1, 2**63 - 1)
"""A number alone on a line with no stated bound grows within the type its tests suggest:
32-bit when every value seen fits, else 64-bit (a value past both does not grow)."""


def infer_layout(inputs: list[str], statement: str = "") -> Layout | Refusal:
    """The layout every one of `inputs` follows, bounded by the statement; or why not."""
    if not inputs:
        return Refusal("no test inputs to read a layout from")
    samples = [st.lines_of(text) for text in inputs]
    if not any(samples):
        return Refusal("every test input is empty")
    if not all(samples):
        return Refusal("some test inputs are empty and others are not")
    dead = st.Dead()
    shapes = st.multi_test(samples, dead)
    tests = shapes is not None
    if not tests:
        dead = st.Dead()
        shapes = st.single(samples, dead)
    if shapes is None:
        return Refusal(st.why_unread(samples, dead))
    return _Builder(shapes, samples, tests, read_constraints(statement)).build()


def propose(
    inputs: list[str], statement: str = "", name: str = "inferred", *, size_max: int = 100
) -> Proposal:
    """A Proposal of source `inferred`: the program, or the refusal's reason as its error."""
    layout = infer_layout(inputs, statement)
    if isinstance(layout, Refusal):
        return Proposal(name, "inferred", "", {"refusal": layout.reason}, error=layout.reason)
    provenance = {
        "layout": asdict(layout),
        "summary": describe(layout),
        "constraints": list(layout.constraints),
        "size_max": size_max,
    }
    provenance.update(growth_provenance(layout, size_max))
    return Proposal(name, "inferred", generator_code(layout, size_max), provenance)


def generator_code(layout: Layout, size_max: int = 100) -> str:
    """A standalone program (stdlib only): `python3 -P gen.py SEED SIZE` prints one input of
    `layout`; SIZE = size_max reaches every count's upper bound (past it only the fields
    with a grow_cap keep growing)."""
    data = json.dumps(asdict(layout), indent=None, sort_keys=True)
    return (
        RUNTIME.read_text()
        + f"\n\nLAYOUT = json.loads({data!r})\nSIZE_MAX = {int(size_max)}\n\n"
        + 'if __name__ == "__main__":\n    main(LAYOUT, SIZE_MAX, sys.argv)\n'
    )


class _Builder(SemanticChecks):
    """Turns shapes and samples into a Layout (steps 2-6 of the module docstring)."""

    def __init__(self, shapes, samples, tests: bool, constraints: Constraints):
        self.shapes, self.samples, self.tests, self.c = shapes, samples, tests, constraints
        self.notes: list[str] = []
        self.fields: list[Field] = []  # reading order
        self.items: list[Item] = []
        self.ref_id: dict = {}  # structure reference -> field id
        self.item_of: dict[str, int] = {}  # field id -> item index (-1: the tests count)
        self.tokens: dict[str, list[str]] = {}  # field id -> every token seen
        self.bound: dict[str, list] = {}  # field id -> [lo, hi] (Fraction or None)
        self.used_statement = False

    # -- 1-2: fields and what was seen ------------------------------------------------------

    def build(self) -> Layout | Refusal:
        self._make_items()
        self.blocks, test_counts, _ = st.instances(self.shapes, self.samples, self.tests)
        if self.tests:
            self.tokens[self.tests_field.id] = [str(t) for t in test_counts]
        for _, occurrences, _ in self.blocks:
            for item, occurrence in zip(self.items, occurrences, strict=True):
                for fid, tokens in split(item, occurrence).items():
                    self.tokens.setdefault(fid, []).extend(tokens)
        for f in self.all_fields():
            self._observe(f)
        self._pin_steady_counts()
        refusal = self._shared_names()
        if refusal:
            return refusal
        self._match_statement()
        self._data_relations()
        for index, item in enumerate(self.items):
            refusal = self._semantics(index, item)
            if refusal:
                return refusal
        self._finish_bounds()
        return Layout(
            items=self.items,
            tests=self.tests_field if self.tests else None,
            constraints=list(self.c.lines) if self.used_statement else [],
            notes=self.notes,
        )

    def all_fields(self) -> list[Field]:
        return ([self.tests_field] if self.tests else []) + self.fields

    def _new_field(self, kind: str, role: str, item_index: int) -> Field:
        f = Field(id=f"v{len(self.fields) + int(self.tests)}", kind=kind, role=role)
        self.fields.append(f)
        self.item_of[f.id] = item_index
        return f

    def _make_items(self) -> None:
        self.tests_field = Field(id="v0", kind="int", role="count")
        self.item_of["v0"] = -1
        for index, shape in enumerate(self.shapes):
            kind = shape[0]
            if kind == "line":
                fields = [self._new_field("", "", index) for _ in range(shape[1])]
                for j, f in enumerate(fields):
                    self.ref_id[(index, j)] = f.id
                item = Item("line", fields)
            elif kind == "list":
                item = Item("list", [self._new_field("", "element", index)], self.ref_id[shape[1]])
            elif kind == "word":
                item = Item("word", [self._new_field("str", "word", index)], self.ref_id[shape[1]])
            else:
                _, ref, offset, row = shape
                item = Item("rows", [], self.ref_id[ref], offset)
                if row[0] == "fixed":
                    item.fields = [self._new_field("", "element", index) for _ in range(row[1])]
                elif row[0] == "inline":
                    item.inline = True
                    item.fields = [self._new_field("int", "element", index) for _ in range(2)]
                else:
                    item.width = self.ref_id[row[1]]
                    if row[0] == "grid":
                        item.kind = "grid"
                    role = "cell" if row[0] == "grid" else "element"
                    item.fields = [self._new_field("str" if role == "cell" else "", role, index)]
            self.items.append(item)
        counted = {i.count for i in self.items} | {i.width for i in self.items}
        for item in self.items:
            for f in item.fields if item.kind == "line" else []:
                f.role = "count" if f.id in counted else "magnitude"

    def _observe(self, f: Field) -> None:
        tokens = self.tokens.get(f.id, [])
        if f.role == "cell":
            f.alphabet = "".join(sorted({ch for row in tokens for ch in row}))
            return
        f.kind = f.kind or st.kind_of(tokens)
        if f.kind == "str":
            lengths = [len(t) for t in tokens] or [1]
            f.lo, f.hi = min(lengths), max(lengths)
            f.alphabet = "".join(sorted({ch for t in tokens for ch in t}))
            if f.role == "magnitude":
                f.role = "size" if f.lo != f.hi else "element"
            return
        values = parse_numbers(tokens) or [0]
        f.lo, f.hi = min(values), max(values)
        if f.kind == "float":
            f.decimals = max(len(t.partition(".")[2]) for t in tokens)

    def values(self, block, fid: str) -> list[Fraction]:
        """The numbers field `fid` took in one block (from the block's occurrences)."""
        _, occurrences, _ = block
        index = self.item_of[fid]
        item = self.items[index]
        tokens = split(item, occurrences[index]).get(fid, [])
        return parse_numbers(tokens)

    def order(self, fid: str) -> int:
        return 0 if fid == "v0" and self.tests else int(fid[1:])

    def field(self, fid: str) -> Field:
        return next(f for f in self.all_fields() if f.id == fid)

    def _pin_steady_counts(self) -> None:
        """An integer that is the same c in every test and could count what follows it (a
        later line of c tokens, or c lines alike) was read as fixed parts: it keeps c, or a
        generator would print another c before the same fixed parts."""
        for index, item in enumerate(self.items):
            for f in item.fields if item.kind == "line" else []:
                c = f.lo
                if f.kind != "int" or f.role != "magnitude" or f.hi != c or c < 1:
                    continue
                later = [i for i in self.items[index + 1 :] if i.kind == "line"]
                widths = [len(i.fields) for i in later]
                runs = any(len(set(widths[k : k + c])) == 1 for k in range(len(widths) - c + 1))
                if c in widths or runs:
                    f.source = "pinned"
                    self.bound[f.id] = [Fraction(c), Fraction(c)]
                    self.notes.append(f"{f.id} is {c} in every test and may count what follows")

    # -- 3: what a generator cannot keep ----------------------------------------------------

    def _shared_names(self) -> Refusal | None:
        """Short strings that recur in two positions of one test name the same thing (a
        station, a team): which must match or differ cannot be read, so no generator is
        written. (Sized strings, such as s and t of one line, may be equal by chance.)"""
        text_fields = [f for f in self.fields if f.kind == "str" and f.role == "element"]
        for _, occurrences, _ in self.blocks:
            seen: dict[str, str] = {}
            for f in text_fields:
                index = self.item_of[f.id]
                for token in dict.fromkeys(split(self.items[index], occurrences[index])[f.id]):
                    if seen.get(token, f.id) != f.id:
                        return Refusal(
                            f"the same name ({token!r}) appears in two positions ({seen[token]} "
                            f"and {f.id}): a graph or a list of names whose relations "
                            "(which names must match or differ) cannot be read"
                        )
                    seen[token] = f.id
        return None

    # -- 5: the statement's constraint lines --------------------------------------------------

    def _numeric_slots(self) -> list[Field]:
        return [f for f in self.all_fields() if f.kind in ("int", "float")]

    def _text_slots(self) -> list[Field]:
        return [f for f in self.fields if f.kind == "str" and f.role in ("size", "element", "word")]

    def _match_statement(self) -> None:
        c = self.c
        if not (c.lower or c.upper or c.relations):
            return
        slots = self._numeric_slots()
        plain = [n for n in c.order if not n.startswith("|")]
        mentioned = [n for n in c.mentioned if not n.startswith("|")]
        mapping, why = None, ""
        for names in dict.fromkeys((tuple(plain), tuple(mentioned))):
            if len(names) != len(slots):
                why = why or f"{len(plain)} constrained names for {len(slots)} numeric positions"
                continue
            candidate = dict(zip(names, slots, strict=True))
            why = self._misfit(candidate)
            if not why:
                mapping = candidate
                break
        if mapping is None:
            mapping = self._match_by_kind(plain, slots) or None
        lengths = [n for n in c.order if n.startswith("|")]
        texts = self._text_slots()
        if lengths and len(lengths) == len(texts):
            for name, f in zip(lengths, texts, strict=True):
                self._apply_length(name, f)
        if mapping is None:
            self.notes.append(f"statement bounds not used: {why}; observed ranges instead")
            return
        self.used_statement = True
        for name, f in mapping.items():
            f.name = name
            if f.source == "pinned":
                continue  # the fixed parts after it need its one value
            self.bound[f.id] = self._numeric_bounds(name, f)
            if name in c.unread:
                self.bound[f.id][1] = None
                self.notes.append(f"{name}: a bound was not read; its largest seen value kept")
        self._apply_relations(mapping)

    def _match_by_kind(self, names: list[str], slots: list[Field]) -> dict[str, Field]:
        """When the statement leaves some positions unbounded: plain names (n, k) matched in
        order to the numbers on lines, names of elements (a_i) to the other numbers, each
        kind only when it names all of its positions and fits the tests."""
        mapping: dict[str, Field] = {}
        scalars = [f for f in slots if f.id == "v0" and self.tests or self._on_line(f)]
        elements = [f for f in slots if f not in scalars]
        for kind_names, kind_slots in (
            ([n for n in names if "_" not in n], scalars),
            ([n for n in names if "_" in n], elements),
        ):
            if kind_names and len(kind_names) == len(kind_slots):
                candidate = dict(zip(kind_names, kind_slots, strict=True))
                if not self._misfit(candidate):
                    mapping.update(candidate)
        if mapping:
            self.notes.append("statement bounds matched for " + ", ".join(mapping) + " only")
        return mapping

    def _numeric_bounds(self, name: str, f: Field) -> list:
        lo = self.c.lower.get(name)
        hi = self.c.upper.get(name)
        return [_int_side(lo, +1, f), _int_side(hi, -1, f)]

    def _misfit(self, mapping: dict[str, Field]) -> str:
        """Why the statement's bounds do not fit what the tests hold ("" when they do)."""
        for name, f in mapping.items():
            lo, hi = self._numeric_bounds(name, f)
            if lo is not None and f.lo < lo or hi is not None and f.hi > hi:
                return f"{name} (position {f.id}) holds {f.lo}..{f.hi}, outside the statement's"
        for a, b, strict, shift in self.c.relations:
            if a in mapping and b in mapping:
                if not self._relation_holds(mapping[a], mapping[b], shift - int(strict)):
                    return f"{a} ≤ {b}{shift:+d} does not hold in the tests"
        return ""

    def _relation_holds(self, fa: Field, fb: Field, shift: int) -> bool:
        """Whether a ≤ b + shift in every block where both can be compared."""
        if self.tests and self.tests_field.id in (fa.id, fb.id):
            return True  # the tests count against a block's value: not compared
        ia, ib = self.item_of[fa.id], self.item_of[fb.id]
        for block in self.blocks:
            va, vb = self.values(block, fa.id), self.values(block, fb.id)
            if not va or not vb:
                continue
            if ia == ib and self.items[ia].kind == "rows" and len(va) == len(vb):
                if any(x > y + shift for x, y in zip(va, vb, strict=True)):
                    return False
            elif max(va) > min(vb) + shift:
                return False
        return True

    def _apply_length(self, name: str, f: Field) -> None:
        lo, hi = self.c.lower.get(name), self.c.upper.get(name)
        lo = _int_side(lo, +1, Field("", "int", ""))
        hi = _int_side(hi, -1, Field("", "int", ""))
        if (lo is None or f.lo >= lo) and (hi is None or f.hi <= hi):
            f.name, f.source = name, "statement"
            self.bound[f.id] = [lo, hi]
            self.used_statement = True

    def _apply_relations(self, mapping: dict[str, Field]) -> None:
        """Each relation a ≤ b + shift becomes a bound on whichever is generated later, when
        the other is known by then (a value of a line, or an earlier column of the row)."""
        relations = {(a, b): shift - int(strict) for a, b, strict, shift in self.c.relations}
        for _ in range(3):  # a ≤ b ≤ c: a ≤ c as well
            for (a, b), s1 in list(relations.items()):
                for (b2, c), s2 in list(relations.items()):
                    if b2 == b and a != c and relations.get((a, c), s1 + s2 + 1) > s1 + s2:
                        relations[(a, c)] = s1 + s2
        for (a, b), shift in relations.items():
            if a not in mapping or b not in mapping:
                continue
            fa, fb = mapping[a], mapping[b]
            later, earlier = (fb, fa) if self.order(fb.id) > self.order(fa.id) else (fa, fb)
            if not self._known_before(earlier, later):
                self.notes.append(f"{a} ≤ {b}: not kept (neither is known when the other is drawn)")
                continue
            if later is fb:
                fb.lower.append([fa.id, -shift])
            else:
                fa.upper.append([fb.id, shift])
        for _ in range(3):  # static bounds through relations: l ≤ r ≤ 10^9 bounds l too
            for (a, b), shift in relations.items():
                if a in mapping and b in mapping:
                    lo_a, hi_a = self.bound.setdefault(mapping[a].id, [None, None])
                    lo_b, hi_b = self.bound.setdefault(mapping[b].id, [None, None])
                    if hi_b is not None and (hi_a is None or hi_b + shift < hi_a):
                        self.bound[mapping[a].id][1] = hi_b + shift
                    if lo_a is not None and (lo_b is None or lo_a - shift > lo_b):
                        self.bound[mapping[b].id][0] = lo_a - shift

    def _known_before(self, earlier: Field, later: Field) -> bool:
        """Whether `earlier`'s value is at hand when `later` is drawn: a line's token in the
        same block, or an earlier column of the same row."""
        if self.tests and earlier.id == self.tests_field.id:
            return False
        ie, il = self.item_of[earlier.id], self.item_of[later.id]
        if self.items[ie].kind == "line":
            return True
        item = self.items[ie]
        return ie == il and item.kind == "rows" and not item.width and not item.inline

    # -- 4: values bounded by an earlier count, and shapes kept -------------------------------

    def _data_relations(self) -> None:
        """An integer never above an earlier line's integer in any test, and reaching it (or
        one below it) in some test, stays at most that: indices into an array, node numbers."""
        lines = [f for f in self.fields if f.kind == "int" and self._on_line(f)]
        for f in self.fields:
            if f.kind != "int" or f.upper or self.bound.get(f.id, [None, None])[1] is not None:
                continue
            for h in lines:
                if self.order(h.id) >= self.order(f.id):
                    break
                offset = self._reaches(f, h)
                if offset is not None:
                    f.upper.append([h.id, offset])
                    break

    def _on_line(self, f: Field) -> bool:
        index = self.item_of[f.id]
        return index >= 0 and self.items[index].kind == "line"

    def _reaches(self, f: Field, h: Field) -> int | None:
        """0 or -1 when f ≤ h + offset in every block and equals it in one; else None."""
        tops, reached = [], {0: False, -1: False}
        for block in self.blocks:
            values, (limit,) = self.values(block, f.id), self.values(block, h.id)
            if values:
                tops.append(max(values) - limit)
        if not tops or max(tops) > 0:
            return None
        reached[0], reached[-1] = 0 in tops, -1 in tops
        return 0 if reached[0] else -1 if reached[-1] else None

    def _finish_bounds(self) -> None:
        for f in self.all_fields():
            lo, hi = self.bound.get(f.id, [None, None])
            if (lo is not None or hi is not None) and f.source == "observed":
                f.source = "statement"
            if f.kind == "float":
                f.lo = float(lo if lo is not None else f.lo)
                f.hi = float(hi if hi is not None else f.hi)
                continue
            seen_lo, seen_hi = int(f.lo), int(f.hi)
            f.lo = int(lo) if lo is not None else seen_lo
            if hi is not None:
                f.hi = int(hi)
            elif f.role in ("count", "size"):
                f.hi = max(seen_hi, min(seen_hi * UNSTATED_GROWTH, UNSTATED_CAP))
                self.notes.append(f"{f.id}: no bound read; up to {f.hi} ({seen_hi} seen)")
                if f.source == "observed":
                    f.grow_cap = MAX_TOKENS if f.role == "size" else MAX_COUNT
            else:
                f.hi = seen_hi
                if f.role == "magnitude" and f.source == "observed" and not f.upper:
                    f.grow_cap = next((cap for cap in TYPE_CAPS if seen_hi <= cap), 0)
            if f.role in ("count", "size") and f.hi > MAX_COUNT:
                self.notes.append(f"{f.id}: {f.hi} capped at {MAX_COUNT}")
                f.hi = MAX_COUNT
            f.lo = min(f.lo, f.hi)
        for item in self.items:
            self._cap_tokens(item)
        self._derived_ranges()
        if self.tests:
            for f in self.fields:
                if f.role in ("count", "size"):
                    total = self.c.sums.get(f.name) if f.name else None
                    f.budget = int(total) if total is not None else f.hi
                    if total is None:
                        self.notes.append(
                            f"{f.id}: no sum over the tests read; its sum kept within {f.hi}"
                        )
            # every block prints a line per item at least: T of them stay within MAX_TOKENS
            self.tests_field.hi = min(self.tests_field.hi, MAX_TOKENS // len(self.items))
            if self.tests_field.grow_cap:
                self.tests_field.grow_cap = MAX_TOKENS // len(self.items)

    def _derived_ranges(self) -> None:
        """Ranges that follow from another field: a permutation's values from its count, a
        tree's nodes from its node count, and a value seen to reach an earlier count (never
        above it) from that count's range."""
        for item in self.items:
            if item.shape.startswith("permutation"):
                base = 0 if item.shape == "permutation0" else 1
                f = item.fields[0]
                f.lo, f.hi = base, self.field(item.count).hi + base - 1 + item.offset
            elif item.shape == "tree":
                base, header = item.traits["base"], self.field(item.traits["header"])
                for j in item.traits["nodes"]:
                    item.fields[j].lo, item.fields[j].hi = base, header.hi + base - 1
        for f in self.fields:
            if f.source == "observed" and f.kind == "int":
                for ref, offset in f.upper:
                    f.hi = max(f.hi, self.field(ref).hi + offset)

    def _cap_tokens(self, item: Item) -> None:
        """Keep one item within MAX_TOKENS at the largest SIZE (and distinct values possible)."""
        if item.kind == "line" or not item.count:
            return
        count = self.field(item.count)
        self._cap_growth(item, count)
        if item.width:
            width = self.field(item.width)
            if count.hi * width.hi > MAX_TOKENS:
                scale = math.sqrt(MAX_TOKENS / (count.hi * width.hi))
                for f in (count, width):
                    f.hi = max(f.lo, int(f.hi * scale))
                self.notes.append(f"{count.id} x {width.id}: capped at {count.hi} x {width.hi}")
            return
        per_row = len(item.fields) if item.kind == "rows" and not item.inline else 1
        if item.inline:
            per_row = 1 + max(1, item.fields[0].hi)
        if count.hi * per_row > MAX_TOKENS:
            count.hi = max(count.lo, MAX_TOKENS // per_row)
            self.notes.append(f"{count.id}: capped at {count.hi} ({per_row} tokens a line)")
        if item.shape in ("distinct", "increasing"):
            f = item.fields[0]
            room = f.hi - f.lo + 1 - item.offset
            if count.hi > room:
                count.hi = max(count.lo, room)
                self.notes.append(f"{count.id}: at most {room}, the distinct values possible")

    def _cap_growth(self, item: Item, count: Field) -> None:
        """A growing count stays within MAX_TOKENS tokens for its item (a grid's or a
        table's rows and width each within its square root), within the distinct values
        its shape can take, and at least its `hi`."""
        width = self.field(item.width) if item.width else None
        growing = [f for f in (count, width) if f is not None and f.grow_cap]
        if width is not None:
            for f in growing:
                f.grow_cap = max(f.hi, min(f.grow_cap, math.isqrt(MAX_TOKENS)))
            return
        per_row = len(item.fields) if item.kind == "rows" and not item.inline else 1
        if item.inline:
            per_row = 1 + max(1, item.fields[0].hi)
        if count.grow_cap:
            count.grow_cap = max(count.hi, min(count.grow_cap, MAX_TOKENS // per_row))
        if count.grow_cap and item.shape in ("distinct", "increasing"):
            f = item.fields[0]
            count.grow_cap = max(count.hi, min(count.grow_cap, f.hi - f.lo + 1 - item.offset))


def _int_side(bound, direction: int, f: Field):
    """A statement bound (Fraction, strict) as the field's inclusive bound (None if none)."""
    if bound is None:
        return None
    value, strict = bound
    if f.kind == "float":
        step = Fraction(1, 10 ** max(1, f.decimals))
        return value + direction * step if strict else value
    whole = math.ceil(value) if direction > 0 else math.floor(value)
    if strict and whole == value:
        whole += direction
    return Fraction(whole)
