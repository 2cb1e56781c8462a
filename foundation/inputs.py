"""The one input policy of every entry point (pages, forms, uploads, the API, the CLI).

Text: no NUL byte (PostgreSQL cannot store one, and no legitimate field holds one), at most a
named number of characters. Numbers: plain ASCII notation, finite, within documented bounds
(a config's bounds live with its fields: foundation.typed.bounded). Ids: whole numbers a
database key can hold. Every refusal is an InputError (a ValueError) whose text starts with
the field's name, raised before anything is written. The limits are settings
(codeopt_site/settings.py, `CODEOPT_MAX_*`); this module is plain Python.
"""

from __future__ import annotations

import math

from foundation.typed import check_bounds, parse_number

NUL = "\x00"
MAX_ID = 2**63 - 1  # a BigAutoField
MAX_UPLOAD_FIELD_CHARS = 1_000_000  # a program in an uploaded line (the sandbox takes 1 MiB)


class InputError(ValueError):
    """A value from outside that the policy refuses; str() names the field first."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field, self.problem = field, problem

    def __reduce__(self):  # picklable: a process pool hands it back to its caller
        return type(self), (self.field, self.problem)


def json_object(data: object, fields, *, where: str = "body") -> dict:
    """`data` as a JSON object holding only `fields`: InputError naming `where` when it is
    not an object, or the first unknown field (the known ones listed)."""
    if not isinstance(data, dict):
        raise InputError(where, "must be a JSON object")
    for key in data:
        if key not in fields:
            name = f"{where}.{key}" if where != "body" else str(key)
            raise InputError(name, f"unknown field; the fields are {', '.join(fields)}")
    return data


def text(field: str, value: object, *, max_chars: int) -> str:
    """`value` as text without NUL and within `max_chars` characters."""
    if not isinstance(value, str):
        raise InputError(field, f"must be text, not {type(value).__name__}")
    if NUL in value:
        raise InputError(field, "contains a NUL byte (\\x00)")
    if len(value) > max_chars:
        raise InputError(field, f"{len(value):,} characters; at most {max_chars:,}")
    return value


def storable(generated: str) -> str:
    """Text a model generated, as a database can store it: a NUL byte (a byte-level tokenizer
    can emit one; PostgreSQL refuses it in text) becomes U+FFFD, the replacement character.
    For model output only: text from users is refused instead (`text`)."""
    return generated.replace(NUL, "\ufffd")


def first_refused(items, *, max_chars: int) -> InputError | None:
    """The first refusal among (field, value) pairs (a query string, a form), or None. A NUL
    in a field's name is refused too, under a printable rendering of that name."""
    for field, value in items:
        if NUL in field:
            return InputError(field.replace(NUL, "\\x00"), "the field's name contains a NUL byte")
        try:
            text(field, value, max_chars=max_chars)
        except InputError as refusal:
            return refusal
    return None


def nested_refused(data: object, *, max_chars: int, path: str = "") -> InputError | None:
    """The first refused string anywhere in decoded JSON (keys included), named by its path
    (`groups[0].programs[3]`), or None."""
    if isinstance(data, str):
        try:
            text(path or "body", data, max_chars=max_chars)
        except InputError as refusal:
            return refusal
        return None
    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and NUL in key:
                return InputError(name.replace(NUL, "\\x00"), "the key contains a NUL byte")
            found = nested_refused(value, max_chars=max_chars, path=name)
            if found:
                return found
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found = nested_refused(value, max_chars=max_chars, path=f"{path}[{index}]")
            if found:
                return found
    return None


def number(field: str, raw: object, *, low: float | None, high: float | None, default=None,
           whole: bool = False):  # fmt: skip
    """A number from a form or a query (text) or from JSON, finite and in [low, high];
    `default` when it is absent or empty."""
    if raw is None or (isinstance(raw, str) and raw.strip() == ""):
        return default
    if isinstance(raw, bool):
        raise InputError(field, f"must be a number, not {raw!r}")
    try:
        value = parse_number(field, raw, whole=whole) if isinstance(raw, str) else raw
    except ValueError as exc:
        raise InputError(field, str(exc).split(": ", 1)[1]) from None
    if not isinstance(value, int | float):
        raise InputError(field, f"must be a number, not {type(value).__name__}")
    if not math.isfinite(value):
        raise InputError(field, "must be a finite number")
    if whole and value != int(value):
        raise InputError(field, f"must be a whole number, not {value!r}")
    try:
        check_bounds(field, value, (low, high))
    except ValueError as exc:
        raise InputError(field, str(exc).split(": ", 1)[1]) from None
    return int(value) if whole else float(value)


def record_id(field: str, raw: object, default=None) -> int | None:
    """The id of a stored row, named by a query or a form: a whole number >= 1 that a
    database key can hold; `default` when absent or empty."""
    return number(field, raw, low=1, high=MAX_ID, default=default, whole=True)


def record_ids(field: str, raw: object, *, most: int = 50) -> list[int]:
    """Ids separated by commas ("3,1,2": that order, repeats dropped), at most `most`."""
    parts = [p for p in str(raw or "").replace(" ", "").split(",") if p]
    if len(parts) > most:
        raise InputError(field, f"{len(parts)} ids; at most {most}")
    return list(dict.fromkeys(record_id(field, part) for part in parts))


def lines_within(field: str, content: str, *, max_lines: int) -> None:
    """An upload's text holds at most `max_lines` lines."""
    count = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    if count > max_lines:
        raise InputError(field, f"{count:,} lines; at most {max_lines:,} per upload")
