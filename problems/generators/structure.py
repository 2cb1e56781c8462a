"""Find the token structure shared by a problem's test inputs (plain Python, no Django).

Each input is read as lines of whitespace-separated tokens. A structure is a list of shapes,
read one after the other; a shape may take its size from an integer read earlier in the same
block (a *reference*, `(shape index, token index)` of a `line`):

- `("line", c)`: one line of c tokens;
- `("list", ref)`: one line of ref tokens;
- `("rows", ref, offset, row)`: ref + offset lines, each `("fixed", c)` (c tokens),
  `("width", w)` (w tokens, w another reference), `("grid", w)` (one string of length w) or
  `("inline",)` (a count k, then k tokens);
- `("word", ref)`: one line holding one string of length ref.

`search(samples)` tries shapes depth first, in an order that prefers explanations by counts
that vary between the tests; `single(samples)` takes the first structure that reads every
input to its end, `multi_test(samples)` the first block structure that reads every input as a
leading T and T such blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

INT = re.compile(r"-?(?:0|[1-9]\d*)\Z")
FLOAT = re.compile(r"-?\d+\.\d+\Z")
SEARCH_STEPS = 20_000  # shapes tried before the search gives up (a refusal, not a guess)
MAX_SHAPES = 16  # shapes in one layout: longer fixed formats are refused, not searched
MAX_BLOCK_SHAPES = 8  # shapes in one block of a multi-test layout


def lines_of(text: str) -> list[list[str]]:
    """The input as lines of tokens, trailing blank lines dropped."""
    lines = [line.split() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def is_int(token: str) -> bool:
    return bool(INT.match(token))


def kind_of(tokens) -> str:
    """int when every token is a plain integer, float when every one is a number, else str."""
    kind = "int"
    for token in tokens:
        if INT.match(token):
            continue
        if FLOAT.match(token):
            kind = "float"
            continue
        return "str"
    return kind


@dataclass
class Dead:
    """The furthest reading that failed: where, and why (for the refusal)."""

    shapes: list = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    reached: int = -1
    gave_up: bool = False


class Budget:
    def __init__(self, steps: int = SEARCH_STEPS):
        self.left = steps

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def advance(shape, index: int, lines, pos: int, scope: dict):
    """(next position, occurrence) of `shape` (the block's shape number `index`) read from
    lines[pos:], or None.

    `scope` maps references to the integers read so far in this block; a `line` adds its
    integer tokens to it. The occurrence is what was read: the tokens of a line or list, the
    rows of a rows shape, the string of a word."""
    kind = shape[0]
    if kind == "rows":
        _, ref, offset, row = shape
        count = scope.get(ref)
        if count is None or count + offset < 0 or pos + count + offset > len(lines):
            return None
        rows = lines[pos : pos + count + offset]
        if not all(_row_fits(row, tokens, scope) for tokens in rows):
            return None
        return pos + count + offset, rows
    if pos >= len(lines):
        return None
    tokens = lines[pos]
    if kind == "line":
        if len(tokens) != shape[1]:
            return None
        for j, token in enumerate(tokens):
            if is_int(token):
                scope[(index, j)] = int(token)
        return pos + 1, tokens
    if kind == "list":
        return (pos + 1, tokens) if len(tokens) == scope.get(shape[1], -1) else None
    if kind == "word":
        fits = len(tokens) == 1 and len(tokens[0]) == scope.get(shape[1], -1)
        return (pos + 1, tokens[0]) if fits else None
    raise ValueError(f"unknown shape {shape!r}")


def _row_fits(row, tokens, scope) -> bool:
    kind = row[0]
    if kind == "fixed":
        return len(tokens) == row[1]
    if kind == "width":
        return len(tokens) == scope.get(row[1], -1)
    if kind == "grid":
        return len(tokens) == 1 and len(tokens[0]) == scope.get(row[1], -1)
    if kind == "inline":
        return bool(tokens) and is_int(tokens[0]) and len(tokens) == 1 + int(tokens[0])
    raise ValueError(f"unknown row {row!r}")


def read(shapes, lines, pos: int):
    """(end position, occurrences, scope) of one block of `shapes` from lines[pos:], or None."""
    scope: dict = {}
    occurrences = []
    for index, shape in enumerate(shapes):
        step = advance(shape, index, lines, pos, scope)
        if step is None:
            return None
        pos, occurrence = step
        occurrences.append(occurrence)
    return pos, occurrences, scope


def _references(shapes, scopes) -> tuple[list, list]:
    """(varying, steady): the integers read so far that could count something (non-negative
    in every sample), split by whether they differ between samples."""
    refs = []
    for index, shape in enumerate(shapes):
        if shape[0] == "line":
            refs.extend((index, j) for j in range(shape[1]))
    usable = [r for r in refs if all(isinstance(s.get(r), int) and s[r] >= 0 for s in scopes)]
    varying = [r for r in usable if len({s[r] for s in scopes}) > 1]
    return varying, [r for r in usable if r not in varying]


def _candidates(shapes, samples, positions, scopes):
    """The shapes that could come next, the likeliest first."""
    varying, steady = _references(shapes, scopes)
    nexts = [
        lines[pos] if pos < len(lines) else None
        for lines, pos in zip(samples, positions, strict=True)
    ]
    for ref in varying:
        yield from _counted(ref, True, varying, steady, samples, positions, scopes, nexts)
    if all(n is not None for n in nexts) and len({len(n) for n in nexts}) == 1:
        yield ("line", len(nexts[0]))
    for ref in steady:
        yield from _counted(ref, False, varying, steady, samples, positions, scopes, nexts)


def _counted(ref, varies, varying, steady, samples, positions, scopes, nexts):
    """Shapes whose size is the integer `ref`."""
    for offset in (0, -1):
        blocks = []
        for lines, pos, scope in zip(samples, positions, scopes, strict=True):
            count = scope[ref] + offset
            if count < 0 or pos + count > len(lines):
                break
            blocks.append((lines[pos : pos + count], scope))
        else:
            rows = [(tokens, scope) for block, scope in blocks for tokens in block]
            if rows:
                for row in _row_shapes(rows, ref, varying, steady):
                    yield ("rows", ref, offset, row)
    if all(n is not None and len(n) == s[ref] for n, s in zip(nexts, scopes, strict=True)):
        yield ("list", ref)
    if varies and all(
        n is not None and len(n) == 1 and len(n[0]) == s[ref]
        for n, s in zip(nexts, scopes, strict=True)
    ):
        yield ("word", ref)


def _row_shapes(rows, count, varying, steady):
    """Row shapes that fit every one of `rows` ((tokens, scope) pairs), the likeliest first;
    a width equal to the rows' own count (a square) is tried after the others."""
    varying = sorted(varying, key=lambda ref: ref == count)
    steady = sorted(steady, key=lambda ref: ref == count)
    if all(len(tokens) == 1 for tokens, _ in rows):
        for w in varying + steady:
            if all(len(tokens[0]) == scope[w] for tokens, scope in rows):
                yield ("grid", w)
    for w in varying:
        if all(len(tokens) == scope[w] for tokens, scope in rows):
            yield ("width", w)
    widths = {len(tokens) for tokens, _ in rows}
    if len(widths) == 1 and widths != {0}:
        yield ("fixed", widths.pop())
    for w in steady:
        if all(len(tokens) == scope[w] for tokens, scope in rows):
            yield ("width", w)
    if len(widths) > 1 and all(_row_fits(("inline",), tokens, {}) for tokens, _ in rows):
        yield ("inline",)


def search(samples, start: int = 0, dead: Dead | None = None, depth: int = MAX_SHAPES):
    """Yield (shapes, positions) for every structure of at most `depth` shapes read from line
    `start` of each sample, at each shape boundary (the caller decides which are complete),
    depth first."""
    budget = Budget()
    dead = dead if dead is not None else Dead()
    start_state = ([start] * len(samples), [{} for _ in samples])
    yield from _explore(samples, [], *start_state, budget, dead, depth)


def _explore(samples, shapes, positions, scopes, budget, dead, depth):
    yield shapes, positions
    reached = sum(positions)
    if reached > dead.reached:
        dead.shapes, dead.positions, dead.reached = list(shapes), list(positions), reached
    if (
        all(pos >= len(lines) for lines, pos in zip(samples, positions, strict=True))
        or len(shapes) >= depth
    ):
        return
    for shape in _candidates(shapes, samples, positions, scopes):
        if not budget.spend():
            dead.gave_up = True
            return
        moved, new_scopes = [], []
        for lines, pos, scope in zip(samples, positions, scopes, strict=True):
            scope = dict(scope)
            step = advance(shape, len(shapes), lines, pos, scope)
            if step is None:
                break
            moved.append(step[0])
            new_scopes.append(scope)
        else:
            yield from _explore(samples, [*shapes, shape], moved, new_scopes, budget, dead, depth)
            if dead.gave_up:
                return


def single(samples, dead: Dead):
    """The first structure that reads every sample to its end, or None."""
    for shapes, positions in search(samples, dead=dead):
        if shapes and all(pos == len(lines) for lines, pos in zip(samples, positions, strict=True)):
            return shapes
    return None


def multi_test(samples, dead: Dead):
    """Shapes of one block when every sample is a T followed by T blocks of them (at least two
    shapes: a one-line block is plain rows), or None."""
    firsts = [lines[0] if lines else [] for lines in samples]
    if not all(len(f) == 1 and is_int(f[0]) and int(f[0]) >= 1 for f in firsts):
        return None
    if all(int(f[0]) == 1 for f in firsts):
        return None
    if any(int(f[0]) > len(lines) - 1 for f, lines in zip(firsts, samples, strict=True)):
        return None  # every block starts with a line: T blocks need T lines at least
    for shapes, _ in search(samples, start=1, dead=dead, depth=MAX_BLOCK_SHAPES):
        if len(shapes) >= 2 and all(_blocks_end(shapes, lines) for lines in samples):
            return shapes
    return None


def _blocks_end(shapes, lines) -> bool:
    pos = 1
    for _ in range(int(lines[0][0])):
        block = read(shapes, lines, pos)
        if block is None:
            return False
        pos = block[0]
    return pos == len(lines)


def instances(shapes, samples, tests: bool):
    """(blocks, tests counts, ends): every block read as (sample index, occurrences, scope),
    the T of each sample, and the line after each sample's last block; None when a sample
    does not follow `shapes`."""
    found, test_counts, ends = [], [], []
    for index, lines in enumerate(samples):
        pos, blocks = (1, int(lines[0][0])) if tests else (0, 1)
        test_counts.append(blocks)
        for _ in range(blocks):
            block = read(shapes, lines, pos)
            if block is None:
                return None
            pos, occurrences, scope = block
            found.append((index, occurrences, scope))
        ends.append(pos)
    return found, test_counts, ends


def why_unread(samples, dead: Dead) -> str:
    """The refusal for inputs no structure reads: the furthest reading, and what broke it."""
    if dead.gave_up:
        return f"no layout found within {SEARCH_STEPS} tries"
    if len(dead.shapes) >= MAX_SHAPES:
        return f"the layout would need more than {MAX_SHAPES} parts"
    ended = [
        i
        for i, (lines, pos) in enumerate(zip(samples, dead.positions, strict=True))
        if pos >= len(lines)
    ]
    left = [
        i
        for i, (lines, pos) in enumerate(zip(samples, dead.positions, strict=True))
        if pos < len(lines)
    ]
    if ended and left:
        counts = sorted({len(lines) for lines in samples})
        if len({len(tokens) for lines in samples for tokens in lines}) == 1:
            return (
                f"the number of lines varies between tests ({counts[0]} to {counts[-1]}) and no "
                "count in the input announces it (read to end of file?)"
            )
        extra = len(samples[left[0]]) - dead.positions[left[0]]
        return (
            f"trailing data: after {len(dead.shapes)} parts that read test {ended[0] + 1} to its "
            f"end, test {left[0] + 1} has {extra} more line(s) no count announces"
        )
    widths = sorted({len(lines[pos]) for lines, pos in zip(samples, dead.positions, strict=True)})
    line = min(dead.positions) + 1
    return (
        f"the tests disagree from line {line} on ({'/'.join(map(str, widths))} tokens) and no "
        "integer read before counts them"
    )
