"""Strict checking of plain data (a file, a form, a stored row) against the field types of
a config dataclass: the reward configuration and the training configuration share it. Plain
Python; every error names its field."""

from __future__ import annotations

import math


def checked_values(data: object, kinds: dict[str, type], optional: frozenset[str]) -> dict:
    """`data` with each value checked against kinds[name] (bool, str, int or float) and
    converted; None allowed for the `optional` names. ValueError naming the field."""
    if not isinstance(data, dict):
        raise ValueError("a configuration must be a mapping of field: value")
    unknown = sorted(set(data) - set(kinds))
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: unknown field (known: {', '.join(kinds)})")
    values = {}
    for name, value in data.items():
        kind = kinds[name]
        if value is None and name in optional:
            values[name] = None
        elif kind is str:
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name}: must be a non-empty text, not {value!r}")
            values[name] = value.strip()
        elif kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{name}: must be true or false, not {value!r}")
            values[name] = value
        else:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name}: must be a number, not {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{name}: must be finite")
            if kind is int and value != int(value):
                raise ValueError(f"{name}: must be a whole number")
            values[name] = kind(value)
    return values
