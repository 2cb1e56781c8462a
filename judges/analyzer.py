"""The built-in speedup-source judge: no model, only the syntax trees of the two programs
(Python's `ast`) and, when measured, their scaling exponents. Plain Python.

Features of each program: how it reads and writes (input() calls, bulk stdin reads, prints
inside loops, one joined write), the nesting depth of its loops outside I/O, the containers
it uses (set, dict, deque, heap, Counter, bisect), memoization and recursion, closed-form
math (pow with a modulus, gcd, isqrt, integer formulas), library calls, and a normalized
shape of the code with names erased. The rules, in order:

1. none: the two programs have the same normalized shape (renamings, reordered imports,
   comments and docstrings do not count).
2. io: only the I/O features differ; the computation's shape is the same.
3. different_algorithm: little of the computation is shared (the called functions and the
   control structure mostly differ), and the change is not one of the named techniques.
4. math_shortcut: loops disappear or get shallower while closed-form math appears.
5. data_structure: a container that makes lookups, queue pops or minima cheaper appears,
   with the loop structure kept.
6. algorithmic: loops get shallower, memoization appears, or the measured exponent drops.
7. constant_factor: the rest: same depth, less work per step.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field

IO_READ_ATTRS = {"readline", "readlines", "read"}
FAST_CONTAINERS = {
    "set",
    "frozenset",
    "dict",
    "defaultdict",
    "Counter",
    "deque",
    "heapq",
    "heappush",
    "heappop",
    "heapify",
    "insort",
    "SortedList",
}
BINARY_SEARCH = {"bisect", "bisect_left", "bisect_right"}
MATH_CALLS = {"gcd", "lcm", "isqrt", "comb", "perm", "factorial", "sqrt", "log2", "prod"}
MEMO_DECORATORS = {"lru_cache", "cache"}
SLOW_LIST_METHODS = {"index", "count", "remove", "insert"}
EXPONENT_MARGIN = 0.25  # a measured exponent lower by more than this: a complexity change
DIFFERENT_CALLS = 0.6  # under this share of calls in common, fewer loops mean another method


@dataclass
class Features:
    parsed: bool = True
    input_calls: int = 0
    bulk_reads: int = 0  # sys.stdin.read / buffer.read / readlines / open(0)
    readline_calls: int = 0
    prints: int = 0
    prints_in_loops: int = 0
    writes: int = 0  # sys.stdout.write
    joins: int = 0
    depth: int = 0  # deepest nesting of loops that are not I/O loops (comprehensions count)
    loops: int = 0  # loops that are not I/O loops
    containers: set[str] = field(default_factory=set)
    slow_list_ops: int = 0  # list.pop(0), .index, .count, .remove, .insert
    math: set[str] = field(default_factory=set)
    formula_ops: int = 0  # integer arithmetic outside loops (//, %, ** and pow(a, b, m))
    memo: bool = False
    recursion: bool = False
    binary_search: bool = False
    calls: set[str] = field(default_factory=set)
    shape: str = ""  # normalized dump of the whole program
    compute_shape: str = ""  # the same without I/O statements and calls
    node_kinds: Counter = field(default_factory=Counter)


@dataclass(frozen=True)
class Verdict:
    category: str
    secondary: str | None
    rationale: str
    confidence: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _is_io_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name, dotted = _name(node.func), _dotted(node.func)
    if name in ("input", "print"):
        return True
    if "stdin" in dotted or "stdout" in dotted:
        return True
    return name == "open" and node.args and isinstance(node.args[0], ast.Constant)


def _mentions_io(node: ast.AST) -> bool:
    return any(_is_io_call(n) for n in ast.walk(node))


def _is_io_loop(node: ast.AST) -> bool:
    """A loop whose work is reading or writing (`for _ in range(n): a.append(int(input()))`)."""
    body = getattr(node, "body", [])
    return _mentions_io(node) and len(body) <= 2


class _Erase(ast.NodeTransformer):
    """Names, constants' values and docstrings erased: the program's shape."""

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_arg(self, node):
        node.arg, node.annotation = "_", None
        return node

    def visit_FunctionDef(self, node):
        node.name = "_"
        if node.body and isinstance(node.body[0], ast.Expr):
            if isinstance(getattr(node.body[0], "value", None), ast.Constant):
                node.body = node.body[1:] or [ast.Pass()]
        self.generic_visit(node)
        return node

    def visit_Constant(self, node):
        return ast.copy_location(ast.Constant(value=type(node.value).__name__), node)


PARSE_CALLS = {
    "int", "float", "str", "list", "map", "tuple", "split", "strip", "rstrip", "decode",
    "iter", "next", "splitlines", "readline", "read", "input", "buffer",
}  # fmt: skip


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _parse_only(value: ast.AST, tainted: set[str]) -> bool:
    """An expression that only converts data read from the input (`int(data[0])`,
    `list(map(int, data[1 : n + 1]))`, `next(it)`)."""
    if _mentions_io(value):
        return True
    calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)]
    if any(_name(c.func) not in PARSE_CALLS for c in calls):
        return False
    if any(isinstance(n, ast.Lambda | ast.ListComp | ast.GeneratorExp) for n in ast.walk(value)):
        return False
    return bool(_names(value) & tainted)


def _io_statements(tree: ast.Module) -> set[int]:
    """ids of the statements that read, parse the input, or build and write the output."""
    found: set[int] = set()
    tainted: set[str] = set()
    output: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) in ("print", "write", "join"):
            output |= {n for a in node.args for n in _names(a)}
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
    statements.sort(key=lambda n: (n.lineno, n.col_offset))
    for statement in statements:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if _parse_only(statement.value, tainted):
                tainted |= {n for t in targets for n in _names(t)}
                found.add(id(statement))
            elif (
                all(isinstance(t, ast.Name) and t.id in output for t in targets)
                and isinstance(statement.value, ast.List)
                and not statement.value.elts
            ):
                found.add(id(statement))  # out = []
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            owner = call.func.value if isinstance(call.func, ast.Attribute) else None
            if (
                isinstance(owner, ast.Name)
                and owner.id in output
                and _name(call.func)
                in (
                    "append",
                    "extend",
                )
            ):
                found.add(id(statement))  # out.append(str(x)): building the output
    return found


def _strip_io(tree: ast.Module) -> ast.Module:
    """The program without statements that read, parse the input or write, nor imports."""
    io = _io_statements(tree)

    class Strip(ast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            for name in ("body", "orelse", "finalbody"):
                block = getattr(node, name, None)
                if isinstance(block, list):
                    kept = [
                        s
                        for s in block
                        if not isinstance(s, ast.Import | ast.ImportFrom)
                        and id(s) not in io
                        and not (isinstance(s, ast.stmt) and _statement_is_io(s))
                    ]
                    setattr(node, name, kept or ([ast.Pass()] if name == "body" else []))
            return node

    return Strip().visit(tree)


def _statement_is_io(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.For | ast.While):
        return _is_io_loop(statement)
    if isinstance(statement, ast.FunctionDef | ast.If | ast.With | ast.Try):
        return False
    return _mentions_io(statement)


def _shape(tree: ast.AST) -> str:
    erased = _Erase().visit(ast.parse(ast.unparse(tree)))
    body = getattr(erased, "body", [])
    # imports and top-level order of independent definitions do not change the cost
    statements = sorted(ast.dump(s) for s in body if not isinstance(s, ast.Import | ast.ImportFrom))
    return "\n".join(statements)


def _loop_depth(node: ast.AST, depth: int = 0) -> tuple[int, int]:
    """(deepest nesting, count) of the loops under `node` that are not I/O loops;
    comprehension generators count as loops."""
    deepest, count = depth, 0
    for child in ast.iter_child_nodes(node):
        is_loop = isinstance(child, ast.For | ast.While | ast.AsyncFor) and not _is_io_loop(child)
        generators = 0
        if isinstance(child, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            generators = len(child.generators)
            io_only = _mentions_io(child) and not any(
                isinstance(n, ast.For | ast.While) for n in ast.walk(child)
            )
            if io_only:
                generators = 0
        if is_loop:
            sub_deep, sub_count = _loop_depth(child, depth + 1)
            count += 1 + sub_count
        elif generators:
            sub_deep, sub_count = _loop_depth(child, depth + generators)
            count += generators + sub_count
        else:
            sub_deep, sub_count = _loop_depth(child, depth)
            count += sub_count
        deepest = max(deepest, sub_deep)
    return deepest, count


def features(source: str) -> Features:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return Features(parsed=False)
    found = Features()
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}

    def visit(node: ast.AST, in_loop: bool) -> None:
        found.node_kinds[type(node).__name__] += 1
        inside = in_loop or isinstance(
            node, ast.For | ast.While | ast.ListComp | ast.GeneratorExp | ast.SetComp
        )
        if isinstance(node, ast.Call):
            name, dotted = _name(node.func), _dotted(node.func)
            if name:
                found.calls.add(name)
            if name == "input":
                found.input_calls += 1
            elif name == "print":
                found.prints += 1
                found.prints_in_loops += in_loop
            elif name == "write" and "stdout" in dotted:
                found.writes += 1
            elif name in IO_READ_ATTRS and "stdin" in dotted:
                if name == "readline":
                    found.readline_calls += 1
                else:
                    found.bulk_reads += 1
            elif name == "open" and node.args and isinstance(node.args[0], ast.Constant):
                found.bulk_reads += 1
            if name == "join":
                found.joins += 1
            if name in FAST_CONTAINERS:
                found.containers.add(name)
            if name in BINARY_SEARCH:
                found.binary_search = True
            if name in MATH_CALLS and name not in defined:
                found.math.add(name)
            if name == "pow" and len(node.args) == 3:
                found.math.add("pow3")
            if name == "pop" and node.args and isinstance(node.args[0], ast.Constant):
                found.slow_list_ops += node.args[0].value == 0
            elif name in SLOW_LIST_METHODS and isinstance(node.func, ast.Attribute):
                found.slow_list_ops += 1
        elif isinstance(node, ast.Assign) and "stdin" in _dotted(node.value):
            found.readline_calls += 1  # input = sys.stdin.readline
        elif isinstance(node, ast.Set | ast.SetComp):
            found.containers.add("set")
        elif isinstance(node, ast.Dict | ast.DictComp):
            found.containers.add("dict")
        elif isinstance(node, ast.BinOp) and not in_loop:
            if isinstance(node.op, ast.FloorDiv | ast.Mod | ast.Pow | ast.Mult):
                found.formula_ops += 1
        elif isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if _name(target) in MEMO_DECORATORS:
                    found.memo = True
            if any(isinstance(n, ast.Call) and _name(n.func) == node.name for n in ast.walk(node)):
                found.recursion = True
        for child in ast.iter_child_nodes(node):
            visit(child, inside)

    visit(tree, False)
    found.depth, found.loops = _loop_depth(_strip_io(ast.parse(source)))
    found.shape = _shape(tree)
    found.compute_shape = _shape(_strip_io(ast.parse(source)))
    # a dict used as a memo table: `if key in memo: return memo[key]` inside a recursive function
    if (
        found.recursion
        and "dict" in found.containers
        and re.search(r"\bmemo\w*\b|\bcache\b", source)
    ):
        found.memo = True
    return found


def _io_signature(f: Features) -> tuple:
    return (
        f.input_calls > 0,
        f.bulk_reads > 0,
        f.readline_calls > 0,
        f.prints_in_loops > 0,
        f.writes > 0,
    )


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def kinds_similarity(a: Counter, b: Counter) -> float:
    keys = set(a) | set(b)
    if not keys:
        return 1.0
    return sum(min(a[k], b[k]) for k in keys) / sum(max(a[k], b[k]) for k in keys)


def classify(
    baseline: str,
    optimized: str,
    *,
    baseline_exponent: float | None = None,
    optimized_exponent: float | None = None,
) -> Verdict:
    """The category of the change from `baseline` to `optimized`, with a rationale."""
    b, o = features(baseline), features(optimized)
    if not (b.parsed and o.parsed):
        which = "baseline" if not b.parsed else "optimized"
        return Verdict("none", None, f"the {which} program does not parse as Python", 0.0)
    exponent_drop = (
        baseline_exponent - optimized_exponent
        if baseline_exponent is not None and optimized_exponent is not None
        else None
    )
    io_changed = _io_signature(b) != _io_signature(o)
    io_note = _io_note(b, o) if io_changed else ""

    if b.shape == o.shape:
        return Verdict("none", None, "same code up to names, comments and order", 0.9)
    # the same computation once reading and writing are set aside (a container built while
    # parsing, `set(input().split())`, is not set aside: it changes the computation's cost)
    if b.compute_shape == o.compute_shape and b.containers == o.containers:
        if io_changed:
            return Verdict("io", None, io_note, 0.9)
        return Verdict("none", None, "only I/O statements moved; the same calls", 0.6)

    new_containers = (o.containers - b.containers) & FAST_CONTAINERS
    new_math = o.math - b.math
    shallower = o.depth < b.depth
    fewer_loops = o.loops < b.loops
    secondary = "io" if io_changed else None
    similarity = kinds_similarity(b.node_kinds, o.node_kinds)
    shared_calls = _jaccard(b.calls - {"print", "input"}, o.calls - {"print", "input"})
    same_computation = (
        b.depth == o.depth
        and b.containers == o.containers
        and b.math == o.math
        and (b.memo, b.recursion, b.binary_search) == (o.memo, o.recursion, o.binary_search)
    )
    drop = (
        f"; measured exponent {baseline_exponent:.2f} → {optimized_exponent:.2f}"
        if exponent_drop is not None
        else ""
    )
    exponent_dropped = exponent_drop is not None and exponent_drop > EXPONENT_MARGIN

    if io_changed and same_computation and not exponent_dropped:
        return Verdict(
            "io", None, io_note + "; the computation keeps its loops and containers", 0.7
        )
    if (
        not io_changed
        and same_computation
        and b.loops == o.loops
        and b.calls == o.calls
        and similarity >= 0.8
        and not exponent_dropped
    ):
        return Verdict(
            "none", None, f"same calls and loops; {similarity:.0%} of the syntax shared", 0.5
        )
    if new_math and (shallower or fewer_loops):
        return Verdict(
            "math_shortcut",
            secondary,
            f"loops {b.loops} → {o.loops} (depth {b.depth} → {o.depth}) replaced by "
            f"{', '.join(sorted(new_math))}{drop}",
            0.75,
        )
    if shallower and o.depth == 0 and o.formula_ops > b.formula_ops:
        return Verdict(
            "math_shortcut",
            secondary,
            f"every loop (depth {b.depth}) replaced by a closed-form expression{drop}",
            0.7,
        )
    if o.memo and not b.memo:
        return Verdict("algorithmic", secondary, f"memoization added{drop}", 0.7)
    if b.recursion and not o.recursion and shared_calls >= 0.5:
        return Verdict(
            "algorithmic", secondary, f"recursion replaced by iteration (a table){drop}", 0.55
        )
    if b.recursion != o.recursion:
        return Verdict(
            "different_algorithm",
            secondary,
            f"recursion {'removed' if b.recursion else 'introduced'}; few calls in common "
            f"({shared_calls:.0%}){drop}",
            0.55,
        )
    if new_containers and o.depth >= b.depth - 1:
        return Verdict(
            "data_structure",
            secondary,
            f"{', '.join(sorted(new_containers))} introduced with the loop structure kept "
            f"(depth {b.depth} → {o.depth}){drop}",
            0.65,
        )
    if o.binary_search and not b.binary_search:
        return Verdict(
            "algorithmic",
            secondary,
            f"binary search introduced (loop depth {b.depth} → {o.depth}){drop}",
            0.65,
        )
    if shallower and o.depth == 0:
        return Verdict(
            "constant_factor",
            secondary,
            f"the Python loop (depth {b.depth}) moved into builtins; the work per element "
            f"stays{drop}",
            0.55,
        )
    if shallower or exponent_dropped:
        if shared_calls < DIFFERENT_CALLS:
            return Verdict(
                "different_algorithm",
                secondary,
                f"loop nesting {b.depth} → {o.depth} with {shared_calls:.0%} of the calls in "
                f"common: another method{drop}",
                0.45,
            )
        return Verdict("algorithmic", secondary, f"loop nesting {b.depth} → {o.depth}{drop}", 0.6)
    if similarity < 0.45 and shared_calls < 0.5:
        return Verdict(
            "different_algorithm",
            secondary,
            f"little structure in common ({similarity:.0%} of node kinds, {shared_calls:.0%} of "
            f"calls){drop}",
            0.45,
        )
    return Verdict(
        "constant_factor",
        secondary,
        f"same loop nesting ({b.depth}); less work per step (loops {b.loops} → {o.loops}, "
        f"calls {len(b.calls)} → {len(o.calls)}){drop}",
        0.5,
    )


def _io_note(b: Features, o: Features) -> str:
    parts = []
    if b.input_calls and not o.input_calls:
        parts.append(f"{b.input_calls} input() call(s) replaced")
    if o.bulk_reads > b.bulk_reads:
        parts.append("one bulk read of stdin")
    if b.prints_in_loops and not o.prints_in_loops:
        parts.append("prints in a loop replaced by one write")
    if o.writes > b.writes:
        parts.append("sys.stdout.write")
    if o.readline_calls > b.readline_calls:
        parts.append("sys.stdin.readline")
    return "I/O changed: " + (", ".join(parts) or "different read/write calls")
