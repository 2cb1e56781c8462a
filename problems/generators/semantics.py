"""The semantic checks of problems/generators/infer.py's layout builder: what an item's
values mean beyond their ranges (sequences that are permutations, sorted or distinct; pairs
that form a tree or a graph, which is refused; a grid's fixed characters and corners).
A mixin of infer._Builder: it reads the builder's items, fields and values."""

from __future__ import annotations

import math
from fractions import Fraction

from problems.generators import Refusal
from problems.generators.layout import Field, Item, find_root


class SemanticChecks:
    def _semantics(self, index: int, item: Item) -> Refusal | None:
        if item.kind == "grid":
            self._grid_traits(index, item)
            return None
        if item.kind == "rows" and not item.width and not item.inline:
            refusal = self._pairs(index, item)
            if refusal or item.shape:
                return refusal
        single = item.kind == "list" or (item.kind == "rows" and len(item.fields) == 1)
        if single and item.fields[0].kind == "int" and not item.inline:
            item.shape = self._sequence_shape(item.fields[0])
        return None

    def _sequences(self, f: Field) -> list[list[Fraction]]:
        return [self.values(block, f.id) for block in self.blocks]

    def _sequence_shape(self, f: Field) -> str:
        runs = [s for s in self._sequences(f) if s]
        if not runs:
            return ""
        if max(len(s) for s in runs) >= 3:
            for base in (1, 0):
                if all(sorted(s) == list(range(base, base + len(s))) for s in runs):
                    return "permutation0" if base == 0 else "permutation"
        span = f.hi - f.lo + 1
        distinct = all(len(set(s)) == len(s) for s in runs)
        pairs = sum(len(s) * (len(s) - 1) / 2 for s in runs)
        ordered = all(all(x <= y for x, y in zip(s, s[1:], strict=False)) for s in runs)
        if ordered and sum(math.lgamma(len(s) + 1) for s in runs) / math.log(2) >= 10:
            return "increasing" if distinct else "sorted"
        if distinct and pairs / span >= 3:
            return "distinct"
        return ""

    def _pairs(self, index: int, item: Item) -> Refusal | None:
        """Two integer columns bounded by the same earlier integer n are node numbers: a tree
        when n - 1 of them join n nodes in every test, ranges when the second is never below
        the first (statement or data, equality seen), otherwise a graph: refused."""
        bounded: dict[str, list[int]] = {}
        for j, f in enumerate(item.fields):
            if f.kind == "int":
                for ref, _ in f.upper:
                    if self.items[self.item_of[ref]].kind == "line":
                        bounded.setdefault(ref, []).append(j)
        nodes = next(((h, cols[:2]) for h, cols in bounded.items() if len(cols) >= 2), None)
        if nodes is None:
            return None
        header, (j1, j2) = nodes
        f1, f2 = item.fields[j1], item.fields[j2]
        if self._is_tree(index, item, header, j1, j2):
            return None
        if any(ref == f1.id for ref, _ in f2.lower):
            return None
        pairs = [
            (x, y)
            for block in self.blocks
            for x, y in zip(self.values(block, f1.id), self.values(block, f2.id), strict=True)
        ]
        if pairs and all(x <= y for x, y in pairs) and any(x == y for x, y in pairs):
            f2.lower.append([f1.id, 0])
            self.notes.append(f"{f1.id} ≤ {f2.id} in every row (ranges)")
            return None
        return Refusal(
            f"rows of two node numbers ({f1.id}, {f2.id} in 1..{header}) look like a graph's "
            "edges: its constraints (simple, connected, ...) cannot be checked"
        )

    def _is_tree(self, index: int, item: Item, header: str, j1: int, j2: int) -> bool:
        if item.count != header or item.offset != -1:
            return False
        f1, f2 = item.fields[j1], item.fields[j2]
        base = 0 if min(f1.lo, f2.lo) == 0 else 1
        for block in self.blocks:
            (n,) = self.values(block, header)
            parent = list(range(int(n) + base))
            for x, y in zip(self.values(block, f1.id), self.values(block, f2.id), strict=True):
                if not (base <= x < n + base and base <= y < n + base):
                    return False
                rx, ry = find_root(parent, int(x)), find_root(parent, int(y))
                if rx == ry:
                    return False
                parent[rx] = ry
        item.shape = "tree"
        item.traits = {"nodes": [j1, j2], "base": base, "header": header}
        return True

    def _grid_traits(self, index: int, item: Item) -> None:
        grids = [block[1][index] for block in self.blocks]
        grids = [[row[0] for row in g] for g in grids if g]
        cell = item.fields[0]
        counts = [{ch: "".join(g).count(ch) for ch in cell.alphabet} for g in grids]
        markers = {}
        if len(grids) >= 2:
            for ch in cell.alphabet:
                seen = {c[ch] for c in counts}
                if len(seen) == 1 and 1 <= min(seen) <= 4 and len(cell.alphabet) > 1:
                    markers[ch] = seen.pop()
        corners = {}
        if len(grids) >= 2:
            for key, (r, c) in {
                "top-left": (0, 0),
                "top-right": (0, -1),
                "bottom-left": (-1, 0),
                "bottom-right": (-1, -1),
            }.items():
                chars = {g[r][c] for g in grids if g and g[0]}
                if len(chars) == 1:
                    corners[key] = chars.pop()
        weights = {ch: sum(c[ch] for c in counts) for ch in cell.alphabet if ch not in markers}
        if not weights:  # every character is a marker: fill with the commonest
            common = max(cell.alphabet, key=lambda ch: sum(c[ch] for c in counts))
            weights = {common: 1}
            markers.pop(common, None)
        item.traits = {"markers": markers, "corners": corners, "weights": weights}
        if markers:  # a grid too small for its markers cannot be drawn: keep the sizes seen
            for ref in (item.count, item.width):
                self.bound.setdefault(ref, [None, None])
                seen_lo = self.field(ref).lo
                lo = self.bound[ref][0]
                self.bound[ref][0] = seen_lo if lo is None else max(lo, seen_lo)

    # -- 6: final bounds ------------------------------------------------------------------
