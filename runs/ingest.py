"""Validation of a metrics batch: plain Python, no Django.

A batch is all-or-nothing: the first invalid point stops the parse with a `BatchError`
naming its index and field, and nothing is written. Within a batch, a (step, key) pair sent
twice keeps its last value, as a re-sent batch does against stored points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

MAX_KEY_LENGTH = 200
MAX_STEP = 2**53  # the largest integer a JavaScript chart (a float64) holds exactly

# JSON has no NaN or infinity: accept the spellings trainers actually send.
_SPECIAL_VALUES = {
    "nan": math.nan,
    "+nan": math.nan,
    "-nan": math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-inf": -math.inf,
    "-infinity": -math.inf,
}


class BatchError(ValueError):
    """An invalid batch. `index` is the position of the point at fault, or None."""

    def __init__(self, message: str, *, index: int | None = None, field_name: str | None = None):
        super().__init__(message)
        self.index = index
        self.field_name = field_name

    def as_dict(self) -> dict:
        return {"index": self.index, "field": self.field_name, "error": str(self)}


@dataclass
class ParsedBatch:
    """A validated batch grouped by key: {key: {step: value}}, the last value of a repeated
    (key, step) winning. Values are floats; NaN stands for a NaN point (stored as NULL)."""

    series: dict[str, dict[int, float]] = field(default_factory=dict)

    def __len__(self) -> int:
        return sum(len(steps) for steps in self.series.values())

    @property
    def max_step(self) -> int:
        return max(max(steps) for steps in self.series.values())

    def by_key(self) -> dict[str, tuple[list[int], list[float]]]:
        """{key: (steps, values)} with steps ascending."""
        out = {}
        for key, points in self.series.items():
            steps, values = list(points), list(points.values())
            if steps != sorted(steps):
                pairs = sorted(points.items())
                steps, values = [p[0] for p in pairs], [p[1] for p in pairs]
            out[key] = (steps, values)
        return out


def parse_value(raw: object) -> float:
    """A metric value: a number, null (read as NaN), or a NaN/Infinity spelling."""
    if raw is None:
        return math.nan
    if isinstance(raw, bool):
        raise ValueError("a boolean is not a metric value")
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str):
        special = _SPECIAL_VALUES.get(raw.strip().lower())
        if special is not None:
            return special
        try:
            return float(raw)
        except ValueError:
            pass
    raise ValueError(f"{raw!r} is not a number, null, 'NaN' or 'Infinity'")


def parse_step(raw: object) -> int:
    # 12.0 from a JSON encoder is still step 12; 12.5 is not a step.
    if isinstance(raw, bool):
        raise ValueError("a boolean is not a step")
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if not isinstance(raw, int):
        raise ValueError(f"{raw!r} is not an integer")
    if raw < 0:
        raise ValueError(f"{raw} is negative")
    if raw > MAX_STEP:
        raise ValueError(f"{raw} is above the largest step {MAX_STEP}")
    return raw


def parse_key(raw: object) -> str:
    if not isinstance(raw, str):
        raise ValueError(f"{raw!r} is not a string")
    if not raw.strip():
        raise ValueError("the key is empty")
    if len(raw) > MAX_KEY_LENGTH:
        raise ValueError(f"the key has {len(raw)} characters; at most {MAX_KEY_LENGTH}")
    if not raw.isprintable():
        raise ValueError("the key holds a control character")
    return raw


_FIELDS = (("step", parse_step), ("key", parse_key), ("value", parse_value))


def parse_batch(payload: object, *, max_points: int) -> ParsedBatch:
    """Validate `{"points": [{"step", "key", "value"}, ...]}` into columns.

    Raises BatchError on the first problem; the caller writes nothing in that case.
    """
    if not isinstance(payload, dict) or "points" not in payload:
        raise BatchError('the body must be an object with a "points" list', field_name="points")
    points = payload["points"]
    if not isinstance(points, list):
        raise BatchError('"points" must be a list', field_name="points")
    if not points:
        raise BatchError('"points" is empty', field_name="points")
    if len(points) > max_points:
        raise BatchError(
            f"the batch has {len(points)} points; at most {max_points} per request",
            field_name="points",
        )
    series: dict[str, dict[int, float]] = {}
    for index, point in enumerate(points):
        # Fast path for the common well-formed point; anything else takes the checked path.
        try:
            step, key, value = point["step"], point["key"], point["value"]
        except (TypeError, KeyError):
            step, key, value = _parse_point(point, index)
        else:
            if not (
                type(step) is int
                and 0 <= step <= MAX_STEP
                and type(key) is str
                and 0 < len(key) <= MAX_KEY_LENGTH
                and key.isprintable()
                and not key.isspace()
                and (type(value) is float or type(value) is int)
            ):
                step, key, value = _parse_point(point, index)
        target = series.get(key)
        if target is None:
            target = series[key] = {}
        target[step] = value if type(value) is float else float(value)
    return ParsedBatch(series)


def _parse_point(point: object, index: int) -> tuple[int, str, float]:
    if not isinstance(point, dict):
        raise BatchError("a point must be an object", index=index)
    parsed = []
    for name, parse in _FIELDS:
        if name not in point:
            raise BatchError(f"{name} is missing", index=index, field_name=name)
        try:
            parsed.append(parse(point[name]))
        except ValueError as exc:
            raise BatchError(str(exc), index=index, field_name=name) from None
    return parsed[0], parsed[1], parsed[2]


def encode_value(value: float | None) -> float | str:
    """A stored value as JSON can carry it: non-finite numbers become strings."""
    if value is None or math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value
