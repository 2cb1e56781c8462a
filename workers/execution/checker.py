"""Output checking as the Kattis default validator does it. Plain Python.

Tokens are whitespace-separated; they compare case-insensitively unless the problem says
case-sensitive. With a float tolerance, two tokens that both parse as numbers are equal when
within the absolute OR the relative tolerance (either may be set); other tokens must match
exactly. Extra or missing tokens are wrong answers, whitespace layout is not.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class CheckerSettings:
    case_sensitive: bool = False
    space_change_sensitive: bool = False
    float_absolute_tolerance: float | None = None
    float_relative_tolerance: float | None = None

    @property
    def has_float_tolerance(self) -> bool:
        return (
            self.float_absolute_tolerance is not None or self.float_relative_tolerance is not None
        )


def parse_validator_flags(flags: str) -> CheckerSettings:
    """`validator_flags` of problem.yaml for the default validator; ValueError if unknown."""
    words = flags.split()
    options: dict = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("case_sensitive", "space_change_sensitive"):
            options[word] = True
            i += 1
            continue
        if word in ("float_tolerance", "float_absolute_tolerance", "float_relative_tolerance"):
            if i + 1 >= len(words):
                raise ValueError(f"validator_flags: {word} needs a number")
            eps = float(words[i + 1])
            if word in ("float_tolerance", "float_absolute_tolerance"):
                options["float_absolute_tolerance"] = eps
            if word in ("float_tolerance", "float_relative_tolerance"):
                options["float_relative_tolerance"] = eps
            i += 2
            continue
        raise ValueError(f"validator_flags: unknown flag {word!r}")
    return CheckerSettings(**options)


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    message: str = ""


def _as_float(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if not math.isnan(value) else None


def _floats_match(expected: float, got: float, settings: CheckerSettings) -> bool:
    difference = abs(expected - got)
    absolute = settings.float_absolute_tolerance
    relative = settings.float_relative_tolerance
    if absolute is not None and difference <= absolute:
        return True
    return relative is not None and difference <= relative * abs(expected)


def check_output(
    expected: str, got: str, settings: CheckerSettings = CheckerSettings()
) -> CheckResult:
    if settings.space_change_sensitive:
        # whitespace runs become tokens of their own and must match exactly
        want = [t for t in re.split(r"(\s+)", expected) if t]
        have = [t for t in re.split(r"(\s+)", got) if t]
    else:
        want = expected.split()
        have = got.split()
    for index, (a, b) in enumerate(zip(want, have, strict=False)):  # lengths checked below
        if a == b or (not settings.case_sensitive and a.lower() == b.lower()):
            continue
        if settings.has_float_tolerance:
            fa, fb = _as_float(a), _as_float(b)
            if fa is not None and fb is not None and _floats_match(fa, fb, settings):
                continue
        return CheckResult(False, f"token {index + 1}: expected {a[:40]!r}, got {b[:40]!r}")
    if len(have) < len(want):
        return CheckResult(False, f"output ends after {len(have)} tokens; expected {len(want)}")
    if len(have) > len(want):
        return CheckResult(
            False, f"{len(have) - len(want)} extra tokens after the expected {len(want)}"
        )
    return CheckResult(True)
