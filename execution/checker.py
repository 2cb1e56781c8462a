"""Output checking byte for byte as Kattis' default validator does it. Plain Python.

The reference is `support/default_validator/default_validator.cc` of problemtools, as its
wheel ships it built, on Debian 12's glibc; `tests/execution/test_checker_reference.py` runs both on
the same generated cases. What the reference does, and so what this module does:

1. Answer and output are bytes, never decoded. Whitespace is the six bytes the C locale
   calls space (space, \\t, \\n, \\v, \\f, \\r); every other byte, invalid UTF-8 and NUL
   included, is part of a token.
2. A token counts up to its first NUL byte (the C++ compares `c_str()`s).
3. Without space_change_sensitive, the layout of whitespace does not matter. With it, the
   whitespace before each token and after the last must be the same bytes (`\\r\\n` against
   `\\n` is wrong).
4. With a float tolerance, an answer token that reads as a finite number (`_as_number`)
   must be answered by a token that reads as one, within the absolute OR the relative
   tolerance. Other answer tokens (words, `inf`, `nan`, `1e400`, which overflows) compare as
   strings.
5. Strings compare byte for byte with case_sensitive, otherwise ignoring ASCII case only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# isspace() in the C locale; bytes.split() splits on exactly these
WHITESPACE = b" \t\n\v\f\r"
_TOKEN = re.compile(rb"[^ \t\n\v\f\r]+")
# the longest prefix strtod() reads, hexadecimal first ("0x" alone reads as "0")
_STRTOD_HEX = re.compile(
    rb"[+-]?0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
)
_STRTOD_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
_DIGITS = frozenset(b"0123456789")


@dataclass(frozen=True)
class CheckerSettings:
    """The default validator's options. A tolerance is None when not given; a negative one
    is allowed (the reference accepts it) and never passes."""

    case_sensitive: bool = False
    space_change_sensitive: bool = False
    float_absolute_tolerance: float | None = None
    float_relative_tolerance: float | None = None

    def __post_init__(self) -> None:
        for name in ("float_absolute_tolerance", "float_relative_tolerance"):
            value = getattr(self, name)
            if value is not None and not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, not {value!r}")

    @property
    def has_float_tolerance(self) -> bool:
        """Numbers compare as numbers when either tolerance is zero or more."""
        return any(
            value is not None and value >= 0
            for value in (self.float_absolute_tolerance, self.float_relative_tolerance)
        )


def parse_validator_flags(flags: str) -> CheckerSettings:
    """`validator_flags` of problem.yaml, split on whitespace as problemtools does.
    ValueError where the reference stops with a judge error: an unknown flag, a tolerance
    flag without a value, or a value that does not read as a finite number. A later flag
    overrides an earlier one; `float_tolerance` sets both tolerances."""
    words = flags.split()
    options: dict = {}
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("case_sensitive", "space_change_sensitive"):
            options[word] = True
            index += 1
            continue
        if word not in ("float_tolerance", "float_absolute_tolerance", "float_relative_tolerance"):
            raise ValueError(f"validator_flags: unknown flag {word!r}")
        if index + 1 == len(words):
            raise ValueError(f"validator_flags: {word} needs a number after it")
        tolerance = _as_number(words[index + 1].encode())
        if tolerance is None:
            raise ValueError(
                f"validator_flags: {word} needs a finite number, not {words[index + 1]!r}"
            )
        if word in ("float_tolerance", "float_absolute_tolerance"):
            options["float_absolute_tolerance"] = tolerance
        if word in ("float_tolerance", "float_relative_tolerance"):
            options["float_relative_tolerance"] = tolerance
        index += 2
    return CheckerSettings(**options)


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    message: str = ""


def _scanned_length(token: bytes) -> int:
    """How many bytes of `token` glibc's scanf("%lf") takes as a number (a glibc without its
    fix for BZ #12701, as Debian 12's 2.36): a sign, then `0x` and hex digits or decimal
    digits, one '.', then after a digit an exponent letter (`p` for hex, `e` otherwise), a
    sign right after it, and decimal digits. 0 where scanf fails."""
    length, size = len(token), 0
    if size < length and token[size] in b"+-":
        size += 1
    start = size
    hexadecimal = token[start : start + 2] in (b"0x", b"0X")
    if hexadecimal:
        size += 2
    digits = _HEX_DIGITS if hexadecimal else _DIGITS
    exponent = b"pP" if hexadecimal else b"eE"
    got_digit = got_dot = got_exponent = False
    while size < length:
        byte = token[size]
        if byte in _DIGITS or (not got_exponent and byte in digits):
            got_digit = True
        elif got_exponent and token[size - 1] in exponent and byte in b"+-":
            pass
        elif got_digit and not got_exponent and byte in exponent:
            got_exponent = got_dot = True
        elif not got_dot and byte == ord("."):
            got_dot = True
        else:
            break
        size += 1
    if size == start or (hexadecimal and size == start + 2):
        return 0
    return size


def _as_number(token: bytes) -> float | None:
    """The value the reference's `isfloat` gives `token`: None unless scanf reads all of it
    and the value is finite. What it reads, strtod turns into the value of its longest
    valid prefix, so glibc takes `1e`, `1e+` and `0x1p` for 1 and `0x.` for 0; Python-only
    syntax (`1_000`, non-ASCII digits, `infinity`) is not a number."""
    token = token.partition(b"\0")[0]
    if _STRTOD_DECIMAL.fullmatch(token):  # the usual case, fast: scanf reads it all too
        value = float(token)
        return value if math.isfinite(value) else None
    if not token or _scanned_length(token) != len(token):
        return None
    hexadecimal = _STRTOD_HEX.match(token)
    if hexadecimal:
        try:
            value = float.fromhex(hexadecimal.group().decode())
        except OverflowError:
            return None
    else:
        decimal = _STRTOD_DECIMAL.match(token)
        if decimal is None:
            return None
        value = float(decimal.group().decode())
    return value if math.isfinite(value) else None


def _show(data: bytes) -> str:
    """A token for a message: quoted text, or quoted bytes (`'\\xff'`) if not UTF-8."""
    shown = data[:40]
    try:
        quoted = repr(shown.decode())
    except UnicodeDecodeError:
        quoted = repr(shown)[1:]
    return quoted + ("..." if len(data) > 40 else "")


def _tolerances(settings: CheckerSettings) -> str:
    absolute, relative = settings.float_absolute_tolerance, settings.float_relative_tolerance
    absolute_text = "none" if absolute is None else f"{absolute:g}"
    relative_text = "none" if relative is None else f"{relative:g}"
    return f"absolute tolerance {absolute_text}, relative tolerance {relative_text}"


def _token_mismatch(expected: bytes, got: bytes, settings: CheckerSettings, numbers: bool) -> str:
    """Why `got` does not answer `expected`; empty when it does. `numbers`: whether
    `settings` has a float tolerance (asked once per output, not per token)."""
    if expected == got:
        return ""
    expected, got = expected.partition(b"\0")[0], got.partition(b"\0")[0]
    if numbers:
        want = _as_number(expected)
        if want is not None:
            have = _as_number(got)
            if have is None:
                return f"expected a number near {_show(expected)}, got {_show(got)}"
            error = abs(want - have)
            absolute = settings.float_absolute_tolerance
            relative = settings.float_relative_tolerance
            if (absolute is not None and error <= absolute) or (
                relative is not None and error <= relative * abs(want)
            ):
                return ""
            return (
                f"expected {_show(expected)}, got {_show(got)}: off by {error:g} "
                f"({_tolerances(settings)})"
            )
    if expected == got or (not settings.case_sensitive and expected.lower() == got.lower()):
        return ""
    return f"expected {_show(expected)}, got {_show(got)}"


def _line_of_token(data: bytes, index: int) -> int:
    """The 1-based line of token `index` (0-based) of `data`, or of its end."""
    offset = len(data)
    for number, match in enumerate(_TOKEN.finditer(data)):
        if number == index:
            offset = match.start()
            break
    return data.count(b"\n", 0, offset) + 1


def check_output(
    expected: bytes, got: bytes, settings: CheckerSettings = CheckerSettings()
) -> CheckResult:
    """Does output `got` answer `expected` (the .ans file), both raw bytes?"""
    if not isinstance(expected, bytes) or not isinstance(got, bytes):
        raise TypeError("check_output compares bytes: read both files with read_bytes()")
    if settings.space_change_sensitive:
        return _check_space_sensitive(expected, got, settings)
    want, have = expected.split(), got.split()
    # the common case, fast. Tokens equal, or equal but for ASCII case, always match:
    # lowercasing changes neither the value of a number nor whether a token is one.
    if want == have or (
        not settings.case_sensitive and expected.lower().split() == got.lower().split()
    ):
        return CheckResult(True)
    numbers = settings.has_float_tolerance
    for index, (a, b) in enumerate(zip(want, have, strict=False)):  # lengths checked below
        why = _token_mismatch(a, b, settings, numbers)
        if why:
            return _wrong_token(index, why, expected, got)
    return _count_mismatch(len(want), len(have))


def _wrong_token(index: int, why: str, expected: bytes, got: bytes) -> CheckResult:
    lines = f"line {_line_of_token(got, index)}, answer line {_line_of_token(expected, index)}"
    return CheckResult(False, f"token {index + 1} ({lines}): {why}")


def _count_mismatch(wanted: int, printed: int) -> CheckResult:
    if printed < wanted:
        return CheckResult(False, f"output ends after {printed} tokens; expected {wanted}")
    if printed > wanted:
        return CheckResult(False, f"{printed - wanted} extra tokens after the expected {wanted}")
    return CheckResult(True)


def _check_space_sensitive(expected: bytes, got: bytes, settings: CheckerSettings) -> CheckResult:
    """Tokens as usual, and each whitespace run (before every token, and after the last)
    the same bytes as the answer's."""
    want_tokens, have_tokens = _TOKEN.findall(expected), _TOKEN.findall(got)
    # what lies around the tokens: one run of whitespace (maybe empty) more than tokens
    want_spaces, have_spaces = _TOKEN.split(expected), _TOKEN.split(got)
    numbers = settings.has_float_tolerance
    for index, want_space in enumerate(want_spaces):
        have_space = have_spaces[index]  # exists: the output had `index` tokens so far
        if have_space != want_space:
            where = f"before token {index + 1}" if index < len(want_tokens) else "at the end"
            return CheckResult(
                False,
                f"whitespace {where} (line {_line_of_token(got, index)}): "
                f"expected {_show(want_space)}, got {_show(have_space)}",
            )
        if index == len(want_tokens):
            break
        if index == len(have_tokens):
            return _count_mismatch(len(want_tokens), len(have_tokens))
        why = _token_mismatch(want_tokens[index], have_tokens[index], settings, numbers)
        if why:
            return _wrong_token(index, why, expected, got)
    return _count_mismatch(len(want_tokens), len(have_tokens))
