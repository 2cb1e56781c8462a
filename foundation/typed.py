"""The one loader of every dataclass config (reward, training, pipeline): plain data (a file,
a stored row) or text (a form, a command line) checked strictly against the fields' declared
types, every error naming its field. Plain Python.

Kinds: bool, str, int, float, `X | None` of those (None allowed), and tuple[int, ...]. Strict
means: no silent truncation (`repeats: 2.7` is an error, not 2), no bool for a number, no
NaN or infinity, no unknown field, no number outside the field's declared bounds
(`bounded(default, low, high)`: the bounds live with the field, so forms show them and every
loader applies them). Rules across fields and open intervals stay with each config (its
`check()`).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing

INT_TUPLE = "tuple[int, ...]"
STR_TUPLE = "tuple[str, ...]"
BOUNDS = "bounds"


def bounded(default, low: float | None, high: float | None):
    """A config field whose numbers (each item, for a tuple) must lie in [low, high]; None:
    no bound on that side."""
    if isinstance(default, tuple):
        return dataclasses.field(default_factory=lambda: default, metadata={BOUNDS: (low, high)})
    return dataclasses.field(default=default, metadata={BOUNDS: (low, high)})


def bounds_of(cls) -> dict[str, tuple[float | None, float | None]]:
    """{field: (low, high)} of the bounded fields of config dataclass `cls`."""
    return {f.name: f.metadata[BOUNDS] for f in dataclasses.fields(cls) if BOUNDS in f.metadata}


def check_bounds(name: str, value: float, bounds: tuple[float | None, float | None]) -> None:
    """ValueError naming `name` when `value` lies outside `bounds` (inclusive)."""
    low, high = bounds
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(
            f"{name}: must be in [{_shown(low, '-inf')}, {_shown(high, 'inf')}], "
            f"not {_shown(value, '')}"
        )


def _shown(number: float | None, unbounded: str) -> str:
    if number is None:
        return unbounded
    if isinstance(number, int) and abs(number) < 10**12:
        return str(number)
    return f"{number:g}"


def field_kinds(cls) -> tuple[dict[str, object], frozenset[str]]:
    """({field: kind}, the fields that may be None) of a config dataclass, from its type
    hints. TypeError for a field of a kind this loader does not know (a programming error)."""
    hints = typing.get_type_hints(cls)
    kinds: dict[str, object] = {}
    optional = set()
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        if isinstance(hint, types.UnionType) and type(None) in hint.__args__:
            optional.add(f.name)
            (hint,) = [a for a in hint.__args__ if a is not type(None)]
        if hint in (bool, str, int, float):
            kinds[f.name] = hint
        elif typing.get_origin(hint) is tuple and typing.get_args(hint) == (int, Ellipsis):
            kinds[f.name] = INT_TUPLE
        elif typing.get_origin(hint) is tuple and typing.get_args(hint) == (str, Ellipsis):
            kinds[f.name] = STR_TUPLE
        else:
            raise TypeError(f"{cls.__name__}.{f.name}: a config field of type {hint}")
    return kinds, frozenset(optional)


def checked_values(data: object, kinds: dict[str, object], optional: frozenset[str]) -> dict:
    """`data` with each value checked against kinds[name] and converted; None allowed for
    the `optional` names. ValueError naming the field."""
    if not isinstance(data, dict):
        raise ValueError("a configuration must be a mapping of field: value")
    unknown = sorted(set(data) - set(kinds))
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: unknown field (known: {', '.join(kinds)})")
    return {name: _checked(name, value, kinds[name], optional) for name, value in data.items()}


def within_bounds(config) -> None:
    """ValueError naming the first field of dataclass instance `config` outside its bounds
    (for a config made in code, not through `load_config`)."""
    checked_bounds(
        {f.name: getattr(config, f.name) for f in dataclasses.fields(config)},
        bounds_of(type(config)),
    )


def checked_bounds(values: dict, bounds: dict) -> None:
    """Every number of `values` (each item of a tuple) inside its field's bounds."""
    for name, value in values.items():
        if name not in bounds or value is None or isinstance(value, bool | str):
            continue
        for item in value if isinstance(value, tuple) else (value,):
            check_bounds(name, item, bounds[name])


def _checked(name: str, value, kind, optional: frozenset[str]):
    if value is None and name in optional:
        return None
    if kind is str:
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name}: must be a non-empty text, not {value!r}")
        if "\x00" in value:
            raise ValueError(f"{name}: contains a NUL byte")
        return value.strip()
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{name}: must be true or false, not {value!r}")
        return value
    if kind == INT_TUPLE:
        if not isinstance(value, list | tuple) or not value:
            raise ValueError(f"{name}: must be a list of whole numbers, not {value!r}")
        return tuple(_checked(name, item, int, frozenset()) for item in value)
    if kind == STR_TUPLE:  # may be empty: the field's own meaning of "none given"
        if not isinstance(value, list | tuple):
            raise ValueError(f"{name}: must be a list of texts, not {value!r}")
        return tuple(_checked(name, item, str, frozenset()) for item in value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name}: must be a number, not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name}: must be finite")
    if kind is int and value != int(value):
        raise ValueError(f"{name}: must be a whole number, not {value!r}")
    return kind(value)


def from_text(name: str, text: str, kind):
    """A form's or a command line's text as `kind` (the checks of `checked_values` follow):
    bool from on/true/1/yes or off/false/0/no, numbers as Python reads them (strictly: "2.7"
    is not a whole number), tuple[int, ...] from comma-separated numbers, tuple[str, ...]
    from comma-separated texts."""
    text = text.strip()
    if kind is str:
        return text
    if kind is bool:
        lowered = text.lower()
        if lowered in ("on", "true", "1", "yes"):
            return True
        if lowered in ("", "off", "false", "0", "no"):
            return False
        raise ValueError(f"{name}: must be true or false, not {text!r}")
    if kind == INT_TUPLE:
        return [from_text(name, part, int) for part in text.split(",")]
    if kind == STR_TUPLE:
        return [part.strip() for part in text.split(",") if part.strip()]
    return parse_number(name, text, whole=kind is int)


def parse_number(name: str, text: str, *, whole: bool) -> int | float:
    """`text` as a number, in plain ASCII notation only ("1_000", non-ASCII digits and hex
    are refused, though Python reads them); a whole number may be written 2e3. NaN and
    infinity are returned (the caller refuses them, naming the field)."""
    noun = "a whole number" if whole else "a number"
    text = text.strip()
    if not text.isascii() or "_" in text or not text:
        raise ValueError(f"{name}: {text[:40]!r} is not {noun}")
    if whole and text.lstrip("+-").isdigit():
        return int(text)
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{name}: {text[:40]!r} is not {noun}") from None
    return int(number) if whole and number.is_integer() else number


def setting_number(name: str, text: str, kind: type, minimum: float) -> int | float:
    """A setting's text (an environment variable's, set and stripped) as `kind`, int or
    float as Python reads it, at least `minimum`; ValueError naming `name` (the variable)."""
    try:
        value = kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ValueError(f"{name}: {text!r} is not {what}") from None
    if value < minimum:
        raise ValueError(f"{name}: must be >= {minimum}")
    return value


def load_config(cls, data: object, *, text: bool = False):
    """A checked instance of config dataclass `cls` from `data` ({field: value}; fields left
    out keep their defaults), then `cls.check()` when it has one. With `text`, str values
    are parsed first (`from_text`; an empty one keeps the default). ValueError naming the
    field at fault."""
    kinds, optional = field_kinds(cls)
    if text and isinstance(data, dict):
        parsed = {}
        for name, value in data.items():
            if name not in kinds or not isinstance(value, str):
                parsed[name] = value  # unknown, or already typed: checked below
            elif value.strip() != "" or kinds[name] is bool:
                parsed[name] = from_text(name, value, kinds[name])
        data = parsed
    values = checked_values(data, kinds, optional)
    checked_bounds(values, bounds_of(cls))
    missing = [
        f.name
        for f in dataclasses.fields(cls)
        if f.name not in values
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise ValueError(f"{missing[0]}: required")
    config = cls(**values)
    if hasattr(config, "check"):
        config.check()
    return config
