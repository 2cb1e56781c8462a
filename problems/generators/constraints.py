"""Read a statement's constraint lines: bounds on named input variables (plain Python).

`read_constraints(statement)` finds the input section (LaTeX `\\begin{Input}`, `\\section*{Input}`,
Markdown `## Input`, a plain `Input` line) and a `Constraints` section, normalizes the math
(`\\le`, `\\leq`, `<=`, `2 \\cdot 10^{5}`, `2⋅10^5`, `10^9+7`, `\\newcommand` macros) and reads:

- chains such as `1 ≤ n, m ≤ 2·10^5`, `1 ≤ k < n`, `1 ≤ l ≤ r ≤ n`, `-10^9 ≤ a_i ≤ 10^9`,
  `1 ≤ |s| ≤ 10^5`: a bound for each variable, and a relation for two variables side by side;
- "the sum of n over all test cases does not exceed 2·10^5" (or `∑ n ≤ ...`): a sum bound.

Names are normalized: `a_i`, `a_{i}`, `a_1`, `a_n`, `ai` all read `a_i` (one element of an
array), `|s|` is the length of `s`. A bound whose other side is an expression this does not
read (`m ≤ n(n-1)/2`, `n·m ≤ 10^6`) marks its variables `unread`: the caller must not trust
the bounds it did read for them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

HEADINGS = {
    "input": (
        "input",
        "input format",
        "input specification",
        "input data",
        "entrée",
        "entrées",
        "format d'entrée",
    ),
    "output": ("output", "output format", "output specification", "sortie", "format de sortie"),
    "constraints": ("constraints", "limits", "contraintes", "limites"),
    "other": (
        "example",
        "examples",
        "sample",
        "samples",
        "sample input",
        "sample input 1",
        "note",
        "notes",
        "explanation",
        "interaction",
        "scoring",
        "subtasks",
        "exemple",
        "exemples",
    ),
}
SECTION_OF = {word: key for key, words in HEADINGS.items() for word in words}
ENVIRONMENTS = {"input": "input", "output": "output"}  # Kattis' \begin{Input} ... \end{Input}

LATEX = [
    (r"(?m)^\s*[*•\-]\s+", ""),  # list bullets
    (r"\\leqslant|\\leq|\\le(?![a-zA-Z])|<=|⩽", "≤"),
    (r"\\geqslant|\\geq|\\ge(?![a-zA-Z])|>=|⩾", "≥"),
    (r"\\lt(?![a-zA-Z])", "<"),
    (r"\\gt(?![a-zA-Z])", ">"),
    (r"\\cdot|\\times|⋅|×|∙|\*", "·"),
    (r"\\ldots|\\dots|\\cdots|\.\.\.", "…"),
    (r"\\sum(?![a-zA-Z])", "∑"),
    (r"\\left|\\right|\\lvert|\\rvert|\\mid", "|"),
    (r"\\(?:mathrm|text|textrm|mathit|mathbf|operatorname)\s*\{([^{}]*)\}", r"\1"),
    (r"(?<=\d)(?:\\,|\\ |~|\{,\}|[\u2009\u202f\u00a0])(?=\d{3})", ""),  # 100\,000 -> 100000
    (r"\\[,;:!]|\\quad|\\qquad", " "),
    (r"−|–", "-"),
]
_EXPONENT = r"\s*\^\s*(?:\{\s*-?\d+\s*\}|-?\d+)"
_NUMBER = rf"\d+(?:\.\d+)?(?:{_EXPONENT})?(?:\s*·\s*\d+(?:\.\d+)?(?:{_EXPONENT})?)?"
TOKEN = re.compile(
    rf"(?P<num>{_NUMBER})"
    r"|(?P<name>\|\s*[A-Za-z](?:_\{?\w+\}?)?\s*\||[A-Za-z]+(?:_\{[^{}]*\}|_\w+)?)"
    r"|(?P<op>≤|<|≥|>)"
    r"|(?P<comma>,)|(?P<ellipsis>…)|(?P<sign>[-+])|(?P<space>\s+)|(?P<other>.)"
)
SUM = re.compile(
    r"sum\s+of\s+(?:(?:all|the|values\s+of|lengths\s+of)\s+)*(?P<name>\|?[A-Za-z](?:_\{?\w+\}?)?\|?)"
    r"[^.;:]{0,80}?(?:does not exceed|doesn't exceed|do not exceed|not exceed|is at most|"
    r"are at most|at most|is not greater than|≤)\s*(?P<value>" + _NUMBER + r")"
    r"|∑\s*(?:_\{[^{}]*\}|_\w)?\s*(?P<name2>\|?[A-Za-z](?:_\{?\w+\}?)?\|?)\s*≤\s*(?P<value2>"
    + _NUMBER
    + r")",
    re.IGNORECASE,
)
THOUSANDS = re.compile(r"([≤<≥>]\s*)(\d{1,3}(?:[ \u00a0]\d{3})+)(?![\d.])")


@dataclass
class Constraints:
    """What a statement says about its input variables (names as normalized above)."""

    lower: dict[str, tuple[Fraction, bool]] = field(default_factory=dict)  # (bound, strict)
    upper: dict[str, tuple[Fraction, bool]] = field(default_factory=dict)
    relations: list[tuple[str, str, bool, int]] = field(default_factory=list)
    """(a, b, strict, shift): a ≤ b + shift (a < b + shift when strict)."""
    sums: dict[str, Fraction] = field(default_factory=dict)  # sum over tests ≤ value
    unread: set[str] = field(default_factory=set)
    order: list[str] = field(default_factory=list)  # constrained names, in reading order
    mentioned: list[str] = field(default_factory=list)  # every name in the input's math
    lines: list[str] = field(default_factory=list)  # the statement lines read


def macros_of(statement: str) -> dict[str, str]:
    """`\\newcommand{\\maxa}{123456789}` and `\\def\\maxa{...}` as {"maxa": "123456789"}."""
    pattern = r"\\(?:newcommand|renewcommand|def)\s*\{?\\(\w+)\}?\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
    return dict(re.findall(pattern, statement))


def normalize(text: str, macros: dict[str, str] | None = None) -> str:
    """Math in one spelling: ≤ ≥ · …, macros expanded, `100 000` read as one number."""
    macros = macros_of(text) if macros is None else macros
    for macro, value in sorted(macros.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(r"\\" + macro + r"(?![a-zA-Z])", lambda _m, v=value: v, text)
    text = text.replace("$$$", "$")
    for pattern, replacement in LATEX:
        text = re.sub(pattern, replacement, text)
    return THOUSANDS.sub(lambda m: m[1] + re.sub(r"\s", "", m[2]), text)


def number(text: str) -> Fraction | None:
    """`2·10^5`, `10^{18}`, `7+10^9`, `1.5`, `2^30` as an exact number; None otherwise."""
    text = re.sub(r"[\s{}]", "", text)
    total = Fraction(0)
    for sign, term in re.findall(r"([-+]?)([^-+]+)", text):
        value = Fraction(1)
        for factor in term.split("·"):
            base, _, exponent = factor.partition("^")
            try:
                value *= Fraction(base) ** int(exponent) if exponent else Fraction(base)
            except (ValueError, ZeroDivisionError):
                return None
        total += -value if sign == "-" else value
    return total


def name_of(token: str) -> str | None:
    """The normalized variable a name token stands for; None for a word."""
    token = re.sub(r"\s", "", token)
    if token.startswith("|"):
        inner = name_of(token.strip("|"))
        return f"|{inner}|" if inner else None
    base, _, index = token.partition("_")
    if len(base) == 1:
        return f"{base}_i" if index else base
    if len(base) == 2 and not index and (base[1] in "ijk" or base[1].isdigit()):
        return f"{base[0]}_i"  # Codeforces' plain text writes a_i as "ai"
    if len(base) >= 2 and base[0].isalpha() and base[1:].isdigit():
        return f"{base[0]}_i"
    return None


def sections(statement: str) -> dict[str, str]:
    """{"input", "constraints", "before"}: the text under each heading kind; "before" is all
    the text before the first output or examples heading (used when there is no input one)."""
    text = re.sub(r"\\(begin|end)\s*\{(Input|Output)\}", r"\n@@\1 \2@@\n", statement, flags=re.I)
    text = re.sub(r"\\(?:sub)*section\*?\s*\{([^{}]*)\}", r"\n\1\n", text)
    found = {"input": [], "constraints": [], "before": []}
    current, ended = "before", False
    for line in text.splitlines():
        marker = re.fullmatch(r"\s*@@(begin|end) (\w+)@@\s*", line, flags=re.I)
        if marker:
            current = ENVIRONMENTS[marker[2].lower()] if marker[1].lower() == "begin" else "-"
            ended = ended or current == "output"
            continue
        heading = re.sub(r"^[#\s*\-=]+|[\s:*\-=]+$", "", line).strip().lower()
        if heading in SECTION_OF and len(line) < 60:
            current = SECTION_OF[heading]
            ended = ended or current in ("output", "other")
            continue
        if current in found:
            found[current].append(line)
        if not ended:
            found["before"].append(line)
    return {key: "\n".join(lines) for key, lines in found.items()}


def _tokens(text: str) -> list[tuple[str, str]]:
    return [(match.lastgroup, match.group()) for match in TOKEN.finditer(text)]


def _operand(tokens, start):
    """(kind, value, end): a number, a list of names with an optional ± offset, or None."""
    i = start
    kind, group = tokens[i] if i < len(tokens) else ("", "")
    if kind in ("num", "sign"):
        if kind == "sign" and (i + 1 >= len(tokens) or tokens[i + 1][0] != "num"):
            return None  # a sign is part of a number only when written against it: "-10^9"
        text, j = group, i + 1
        if kind == "sign":
            text, j = group + tokens[i + 1][1], i + 2
        while True:  # 10^9 + 7: a sign between numbers continues the number
            k = _skip_spaces(tokens, j)
            if k < len(tokens) and tokens[k][0] == "sign":
                rest = _skip_spaces(tokens, k + 1)
                if rest < len(tokens) and tokens[rest][0] == "num":
                    text, j = text + tokens[k][1] + tokens[rest][1], rest + 1
                    continue
            break
        value = number(text)
        return ("num", value, j) if value is not None else None
    if kind != "name" or name_of(group) is None:
        return None
    names, j = [name_of(group)], i + 1
    while True:  # , name | , …
        k = _skip_spaces(tokens, j)
        if k >= len(tokens) or tokens[k][0] != "comma":
            break
        k = _skip_spaces(tokens, k + 1)
        if k < len(tokens) and tokens[k][0] == "ellipsis":
            j = k + 1
        elif k < len(tokens) and tokens[k][0] == "name" and name_of(tokens[k][1]):
            names.append(name_of(tokens[k][1]))
            j = k + 1
        else:
            break
    offset = 0
    k = _skip_spaces(tokens, j)
    if k < len(tokens) and tokens[k][0] == "sign":
        rest = _skip_spaces(tokens, k + 1)
        if rest < len(tokens) and tokens[rest][0] == "num" and tokens[rest][1].isdigit():
            offset = int(tokens[rest][1]) * (-1 if tokens[k][1] == "-" else 1)
            j = rest + 1
    return ("names", (list(dict.fromkeys(names)), offset), j)


def _continues(tokens, index: int) -> bool:
    """Whether what follows an operand ending at `index` makes it part of a larger expression:
    `n(n-1)/2`, `n · m`, `2n`, `2^k` (a space then "(" is prose: "n (the number of ...)")."""
    if index < len(tokens) and (tokens[index][0] in ("name", "num") or tokens[index][1] == "("):
        return True
    index = _skip_spaces(tokens, index)
    return index < len(tokens) and tokens[index][0] == "other" and tokens[index][1] in "^·/!"


def _precedes(tokens, index: int) -> bool:
    """Whether what comes before the operand starting at `index` makes it part of more."""
    if index > 0 and (tokens[index - 1][0] in ("name", "num") or tokens[index - 1][1] == ")"):
        return True
    while index > 0 and tokens[index - 1][0] == "space":
        index -= 1
    return index > 0 and tokens[index - 1][0] == "other" and tokens[index - 1][1] in "^·/"


def _skip_spaces(tokens, index: int) -> int:
    while index < len(tokens) and tokens[index][0] == "space":
        index += 1
    return index


def _chains(text: str):
    """Every `operand op operand (op operand)*` in `text`: (operands, ops, broken), where
    broken is the index of an operand that is part of a larger expression (`n(n-1)/2`,
    `n·m`), len(operands) when an operator is followed by something unread, else None."""
    tokens = _tokens(text)
    i = 0
    while i < len(tokens):
        first = _operand(tokens, i)
        if first is None:
            i += 1
            continue
        operands, ops, j = [first], [], first[2]
        broken = 0 if _precedes(tokens, i) else None
        while True:
            k = _skip_spaces(tokens, j)
            if k >= len(tokens) or tokens[k][0] != "op":
                break
            nxt = _operand(tokens, _skip_spaces(tokens, k + 1))
            if nxt is None:
                broken = len(operands) + 1
                ops.append(tokens[k][1])
                break
            ops.append(tokens[k][1])
            operands.append(nxt)
            j = nxt[2]
        if broken is None and _continues(tokens, j):
            broken = len(operands) - 1
        if ops:
            yield operands, ops, broken
            i = j
        else:
            i += 1


def _readable_part(operands, ops, broken):
    """(operands, ops, unread names) of a chain with one unread operand: the chain without
    it, and the names it bounded (those are not to be trusted)."""
    if broken is None:
        return operands, ops, []
    neighbours = [operands[k] for k in (broken - 1, broken + 1) if 0 <= k < len(operands)]
    unread = _names_in(neighbours)
    if not unread and broken < len(operands):  # "n·m ≤ 10^6": the expression's own names
        unread = _names_in([operands[broken]])
    if broken == 0:
        return operands[1:], ops[1:], unread
    if broken >= len(operands):  # "m ≤ <something unread>": the whole chain stands
        return operands, ops[: len(operands) - 1], unread
    return operands[:broken], ops[: broken - 1], unread


def _record(found: Constraints, operands, ops, weak: dict) -> None:
    """Bounds and relations of one chain. A lone `n < 2` (two operands) is often prose ("the
    answer is 0 when n < 2"), so its numeric bound goes to `weak`, used only where no range
    (`a ≤ n ≤ b`) bounds that side."""
    lower, upper = (
        (weak["lower"], weak["upper"]) if len(operands) == 2 else (found.lower, found.upper)
    )
    if all(op in "≥>" for op in ops):  # read right to left
        operands, ops = operands[::-1], ["≤" if op == "≥" else "<" for op in ops[::-1]]
    elif not all(op in "≤<" for op in ops):
        return
    for (left_kind, left, _), op, (right_kind, right, _) in zip(
        operands, ops, operands[1:], strict=False
    ):
        strict = op == "<"
        if left_kind == "num" and right_kind == "names":
            names, offset = right
            for name in names:
                _tighten(lower, name, left - offset, strict, max)
        elif left_kind == "names" and right_kind == "num":
            names, offset = left
            for name in names:
                _tighten(upper, name, right - offset, strict, min)
        elif left_kind == "names" and right_kind == "names":
            shift = right[1] - left[1]  # a + left offset ≤ b + right offset
            for a in left[0]:
                for b in right[0]:
                    if a != b:
                        found.relations.append((a, b, strict, shift))
    for name in _names_in(operands):
        if name not in found.order:
            found.order.append(name)


def _names_in(operands) -> list[str]:
    return [name for kind, value, _ in operands if kind == "names" for name in value[0]]


def _tighten(bounds: dict, name: str, value: Fraction, strict: bool, pick) -> None:
    if name not in bounds or pick(bounds[name][0], value) == value != bounds[name][0]:
        bounds[name] = (value, strict)


def _mention_order(text: str, names: list[str]) -> tuple[list[str], list[str]]:
    """The names sorted by where the input section first mentions them (its math spans when
    it has any, else its words); names never mentioned keep their order, after the rest."""
    spans = re.findall(r"\$([^$]+)\$", text)
    mentioned: list[str] = []
    for span in spans or [text]:
        tokens = _tokens(span)
        for index, (kind, token) in enumerate(tokens):
            name = name_of(token) if kind == "name" else None
            if name and (spans or not _article(tokens, index)) and name not in mentioned:
                mentioned.append(name)
    rank = {name: index for index, name in enumerate(mentioned)}
    unknown = len(mentioned)
    return sorted(names, key=lambda n: (rank.get(n, unknown), names.index(n))), mentioned


def _article(tokens, index: int) -> bool:
    """Whether the plain-text token at `index` is the article "a" ("a single integer n"),
    not a variable ("integers a and b", "a (1 ≤ a ≤ 10)")."""
    if tokens[index][1] not in ("a", "A"):
        return False
    after = [t for t in tokens[index + 1 : index + 3] if t[0] != "space"]
    return bool(after) and after[0][0] == "name" and after[0][1] not in ("and", "or", "is")


def read_constraints(statement: str) -> Constraints:
    """Bounds, relations and sum bounds from the statement's input and constraints sections."""
    found = Constraints()
    weak: dict = {"lower": {}, "upper": {}}
    macros = macros_of(statement or "")
    parts = {k: normalize(v, macros) for k, v in sections(statement or "").items()}
    text = "\n".join(p for p in (parts["input"], parts["constraints"]) if p.strip())
    if not text.strip():
        text = parts["before"]
    for line in text.splitlines():
        used = False
        for operands, ops, broken in _chains(line.replace("$", " ")):
            names = _names_in(operands)
            operands, ops, unread = _readable_part(operands, ops, broken)
            found.unread.update(unread)
            if len(operands) >= 2:
                _record(found, operands, ops, weak)
            found.order.extend(n for n in names if n not in found.order and n in unread)
            used = used or bool(names)
        for match in SUM.finditer(line.replace("$", " ")):
            name = name_of(match["name"] or match["name2"])
            value = number(match["value"] or match["value2"])
            if name and value is not None:
                found.sums[name] = value
                used = True
        if used:
            found.lines.append(re.sub(r"\s+", " ", line).strip()[:200])
    for side in ("lower", "upper"):
        for name, bound in weak[side].items():
            getattr(found, side).setdefault(name, bound)
    found.order, found.mentioned = _mention_order(parts["input"] or text, found.order)
    return found
