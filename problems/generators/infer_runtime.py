"""The body of every inferred generator (stdlib only): problems/generators/infer.py appends a
layout (`LAYOUT`, plain data) and `SIZE_MAX` to this file, and `python3 -P gen.py SEED SIZE`
prints one input of that layout, the same for the same SEED and SIZE.

How SIZE is used (fraction = SIZE / SIZE_MAX, SIZE clamped to 1..SIZE_MAX):
- counts and string lengths grow as lo + (hi - lo) x fraction^COUNT_CURVE (the built-in pack's
  generators use the same curve: small at the correctness sizes, the limit at SIZE_MAX), drawn
  in the upper half of that, exactly the top at SIZE_MAX; in a multi-test block each count
  also shares its budget (its sum over the tests, grown the same way) between the tests;
- a number alone on a line (not a count) grows geometrically, lo + span^(fraction x u) with u
  in [0.85, 1]: n <= 10^18 is a few tens at SIZE 10 and 10^15..10^18 at SIZE_MAX;
- values in lists, rows and grids use their whole range at every SIZE (one input in four
  narrows a field's range, so repeats and ties occur);
- past SIZE_MAX (growth = SIZE / SIZE_MAX > 1) a field with a `grow_cap` (no stated bound)
  keeps growing: its upper end is growth x `hi`, up to `grow_cap`; every other field stays
  as at SIZE_MAX. A count's sum over the tests grows the same way.
"""

from __future__ import annotations

import json  # noqa: F401  (the appended layout is read with it)
import random
import sys

COUNT_CURVE = 1.5
MIN_SPREAD = 64  # a number alone on a line is drawn among at least this many values


class Writer:
    def __init__(self, rng: random.Random, fraction: float, growth: float = 1.0):
        self.rng = rng
        self.fraction = fraction
        self.growth = growth
        self.budgets: dict[str, int] = {}
        self.narrowed: dict[str, tuple] = {}

    # -- bounds ---------------------------------------------------------------------------

    def grown(self, field: dict, value):
        """`value` (a field's `hi` or budget) past SIZE_MAX: growth x value up to grow_cap."""
        cap = field.get("grow_cap", 0)
        if self.growth <= 1 or not cap or field["kind"] != "int":
            return value
        return max(value, min(cap, round(value * self.growth)))

    def bounds(self, field: dict, scope: dict):
        lo, hi = field["lo"], self.grown(field, field["hi"])
        for ref, offset in field["lower"]:
            if ref in scope:
                lo = max(lo, scope[ref] + offset)
        for ref, offset in field["upper"]:
            if ref in scope:
                hi = min(hi, scope[ref] + offset)
        return lo, max(lo, hi)

    def size(self, field: dict, scope: dict, tests_left: int = 1) -> int:
        """A count or a string length: grows linearly with SIZE; shares a block's budget."""
        lo, hi = self.bounds(field, scope)
        top = lo + int((hi - lo) * self.fraction**COUNT_CURVE)
        budget = self.budgets.get(field["id"])
        if budget is not None:
            cap = max(lo, min(top, budget - lo * (tests_left - 1)))
            share = budget // tests_left
            value = (
                cap if tests_left == 1 else self.rng.randint(lo, max(lo, min(cap, 2 * share - lo)))
            )
            self.budgets[field["id"]] = budget - value
            return value
        if self.fraction >= 1:
            return top
        return self.rng.randint(max(lo, (lo + top) // 2), top)

    def magnitude(self, field: dict, scope: dict):
        """A number alone on a line: its magnitude grows geometrically with SIZE."""
        lo, hi = self.bounds(field, scope)
        if lo >= 0:
            value = lo + self._grow(hi - lo)
        elif hi <= 0:
            value = hi - self._grow(hi - lo)
        elif self.rng.random() < 0.5:
            value = self._grow(hi)
        else:
            value = -self._grow(-lo)
        value = min(hi, max(lo, value))
        return self._number(field, value)

    def _grow(self, span):
        if span <= 0:
            return 0
        if isinstance(span, int) and span < MIN_SPREAD:
            return self.rng.randint(0, span)  # a few values only: all of them, at every SIZE
        grown = span ** (self.fraction * self.rng.uniform(0.85, 1.0))
        if isinstance(span, int):
            grown = round(grown)
            if grown < MIN_SPREAD <= span:
                # at small SIZE the curve leaves a few values only (10^8 at SIZE 8: 3 or 4),
                # and seeds would give one input: drawn between it and MIN_SPREAD instead
                return self.rng.randint(grown, MIN_SPREAD)
        return min(span, grown)

    def _number(self, field: dict, value):
        if field["kind"] == "int":
            return int(value)
        return round(float(value), field["decimals"])

    def element(self, field: dict, scope: dict):
        """One value of a list, column or row."""
        lo, hi = self.bounds(field, scope)
        if not field["lower"] and not field["upper"]:
            lo, hi = self._narrow(field, lo, hi)
        elif field["lower"] and self.rng.random() < 0.1:
            return self._number(field, lo)  # l = r: the smallest allowed, now and then
        if field["kind"] == "int":
            return self.rng.randint(lo, hi)
        return round(self.rng.uniform(lo, hi), field["decimals"])

    def _narrow(self, field: dict, lo, hi):
        """One input in four draws a field from a part of its range (repeats, small values)."""
        if field["id"] not in self.narrowed:
            keep = self.rng.random() < 0.75 or hi - lo < 2
            top = hi if keep else lo + (hi - lo) ** self.rng.random()
            self.narrowed[field["id"]] = (lo, type(hi)(top) if field["kind"] == "int" else top)
        return self.narrowed[field["id"]]

    def text(self, alphabet: str, length: int) -> str:
        return "".join(self.rng.choices(alphabet or "a", k=length))

    # -- items ----------------------------------------------------------------------------

    def block(self, items: list, out: list, tests_left: int) -> None:
        scope: dict = {}
        for item in items:
            getattr(self, "write_" + item["kind"])(item, scope, out, tests_left)

    def write_line(self, item: dict, scope: dict, out: list, tests_left: int) -> None:
        tokens = []
        for field in item["fields"]:
            role = field["role"]
            if field["kind"] == "str":
                if role == "size":
                    length = self.size(field, scope, tests_left)
                else:
                    length = self.rng.randint(field["lo"], field["hi"])
                tokens.append(self.text(field["alphabet"], length))
                continue
            if role == "count":
                value = self.size(field, scope, tests_left)
            else:
                value = self.magnitude(field, scope)
            scope[field["id"]] = value
            tokens.append(self.format(field, value))
        out.append(" ".join(tokens))

    def format(self, field: dict, value) -> str:
        if field["kind"] == "float":
            return f"{value:.{field['decimals']}f}"
        return str(value)

    def sequence(self, item: dict, field: dict, count: int, scope: dict) -> list:
        """`count` values of one field, kept to the item's shape."""
        shape = item["shape"]
        if shape.startswith("permutation"):
            base = 0 if shape == "permutation0" else 1
            values = list(range(base, base + count))
            self.rng.shuffle(values)
            return values
        if shape in ("distinct", "increasing"):
            lo, hi = self.bounds(field, scope)
            values = self.rng.sample(range(lo, hi + 1), min(count, hi - lo + 1))
        else:
            values = [self.element(field, scope) for _ in range(count)]
        return sorted(values) if shape in ("sorted", "increasing") else values

    def write_list(self, item: dict, scope: dict, out: list, tests_left: int) -> None:
        field = item["fields"][0]
        count = scope[item["count"]] + item["offset"]
        out.append(
            " ".join(self.format(field, v) for v in self.sequence(item, field, count, scope))
        )

    def write_word(self, item: dict, scope: dict, out: list, tests_left: int) -> None:
        out.append(self.text(item["fields"][0]["alphabet"], scope[item["count"]]))

    def write_rows(self, item: dict, scope: dict, out: list, tests_left: int) -> None:
        count = scope[item["count"]] + item["offset"]
        fields = item["fields"]
        if item["shape"] == "tree":
            self.write_tree(item, scope, out, count)
        elif item["width"]:
            width = scope[item["width"]]
            field = fields[0]
            for _ in range(count):
                out.append(" ".join(self.token(field, scope) for _ in range(width)))
        elif item["inline"]:
            for _ in range(count):
                k = self.element(fields[0], scope)
                out.append(" ".join([str(k)] + [self.token(fields[1], scope) for _ in range(k)]))
        elif len(fields) == 1 and item["shape"]:
            out.extend(
                self.format(fields[0], v) for v in self.sequence(item, fields[0], count, scope)
            )
        else:
            for _ in range(count):
                row = dict(scope)
                out.append(" ".join(self.token(field, row) for field in fields))

    def token(self, field: dict, scope: dict) -> str:
        """One element as text; a number is also put in `scope` (a later column may need it)."""
        if field["kind"] == "str":
            return self.text(field["alphabet"], self.rng.randint(field["lo"], field["hi"]))
        value = self.element(field, scope)
        scope[field["id"]] = value
        return self.format(field, value)

    def write_tree(self, item: dict, scope: dict, out: list, count: int) -> None:
        """n - 1 edges of a random tree on n nodes, relabelled, in random order and direction;
        how far back a node's parent may be (`reach`) varies from a path to a bushy tree."""
        traits = item["traits"]
        base, (first, second) = traits["base"], traits["nodes"]
        nodes = count + 1
        labels = list(range(base, base + nodes))
        self.rng.shuffle(labels)
        reach = self.rng.choice([1, 2, 10, nodes])
        edges = []
        for child in range(1, nodes):
            parent = self.rng.randint(max(0, child - reach), child - 1)
            pair = [labels[parent], labels[child]]
            self.rng.shuffle(pair)
            edges.append(pair)
        self.rng.shuffle(edges)
        for u, v in edges:
            row = dict(scope)
            tokens = []
            for j, field in enumerate(item["fields"]):
                if j in (first, second):
                    tokens.append(str(u if j == first else v))
                else:
                    tokens.append(self.token(field, row))
            out.append(" ".join(tokens))

    def write_grid(self, item: dict, scope: dict, out: list, tests_left: int) -> None:
        rows, cols = scope[item["count"]] + item["offset"], scope[item["width"]]
        traits = item["traits"]
        chars = sorted(traits["weights"])
        weights = [traits["weights"][ch] * self.rng.uniform(0.25, 1.75) for ch in chars]
        cells = [self.rng.choices(chars, weights, k=cols) for _ in range(rows)]
        fixed = set()
        if rows and cols:
            spots = {
                "top-left": (0, 0),
                "top-right": (0, cols - 1),
                "bottom-left": (rows - 1, 0),
                "bottom-right": (rows - 1, cols - 1),
            }
            for key, ch in sorted(traits["corners"].items()):
                r, c = spots[key]
                cells[r][c] = ch
                fixed.add((r, c))
        placed = {ch: sum(cells[r][c] == ch for r, c in fixed) for ch in traits["markers"]}
        free = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in fixed]
        self.rng.shuffle(free)
        for ch, total in sorted(traits["markers"].items()):
            for _ in range(max(0, total - placed[ch])):
                if free:
                    r, c = free.pop()
                    cells[r][c] = ch
        out.extend("".join(row) for row in cells)


def main(layout: dict, size_max: int, argv: list[str]) -> None:
    seed, size = int(argv[1]), int(argv[2])
    growth = max(1.0, size / size_max)
    writer = Writer(random.Random(seed), max(1, min(size_max, size)) / size_max, growth)
    out: list[str] = []
    tests = layout["tests"]
    if tests is None:
        writer.block(layout["items"], out, 1)
    else:
        sized = [
            f
            for item in layout["items"]
            if item["kind"] == "line"
            for f in item["fields"]
            if f["budget"]
        ]
        for f in sized:  # a sum over the tests grows like one count
            share = writer.fraction**COUNT_CURVE
            writer.budgets[f["id"]] = max(f["lo"], round(writer.grown(f, f["budget"]) * share))
        count = writer.size(tests, {})
        for f in sized:  # every test needs at least the smallest value of each count
            count = min(count, max(1, writer.budgets[f["id"]] // max(1, f["lo"])))
        count = max(count, tests["lo"])
        out.append(str(count))
        for index in range(count):
            writer.block(layout["items"], out, count - index)
    sys.stdout.write("\n".join(out) + "\n")
