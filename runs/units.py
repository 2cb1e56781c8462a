"""The unit and axis range of every metric key: one table, read by the run pages (rendered
into them as JSON by `{% metric_units %}`, drawn by static/runs/plots.js) and listed in
docs/metrics.md ("Metric keys"; tests/runs/test_metric_units.py holds the two together). Plain
Python.

A key's unit is the first entry of METRIC_UNITS whose pattern matches it: a pattern is a key,
or a key with one `*` standing for any text (`sandbox/verdict_*`, `*_s`). Specific entries
come before the general ones they refine (`losses/entropy` before `losses/*`). The JS side
applies the same rule to the same list (plots.js, `unitOf`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Unit:
    """What values of a unit may be, and how its axis is drawn."""

    low: float | None  # no value is below it (None: unbounded)
    high: float | None  # no value is above it
    fixed: bool = False
    """The axis always spans [low, high] (a fraction on 0…1, never autoscaled to −1…1);
    otherwise it is autoscaled, never past the bounds."""

    def axis(self) -> str:
        """How the axis is drawn, in words (the "axis" column of docs/metrics.md)."""
        if self.fixed:
            return f"{self.low:g}…{self.high:g}"
        if self.low is not None and self.high is not None:
            return f"autoscaled within {self.low:g}…{self.high:g}"
        if self.low is not None:
            return f"autoscaled, ≥ {self.low:g}"
        return "autoscaled"


UNITS: dict[str, Unit] = {
    "fraction": Unit(0.0, 1.0, fixed=True),
    "flag": Unit(0.0, 1.0, fixed=True),
    "percentile points": Unit(0.0, 100.0),
    "seconds": Unit(0.0, None),
    "count": Unit(0.0, None),
    "ratio": Unit(0.0, None),
    "reward": Unit(None, None),
    "loss": Unit(None, None),
}


@dataclass(frozen=True)
class MetricUnit:
    pattern: str  # a key, or a key with one `*`
    unit: str  # a name in UNITS
    label: str  # the y-axis label: what the number counts, in the unit


METRIC_UNITS: tuple[MetricUnit, ...] = (
    MetricUnit("rewards/*", "reward", "reward"),
    MetricUnit("groups/*", "fraction", "fraction of groups"),
    MetricUnit("eval/speed_percentile", "percentile points", "percentile points"),
    MetricUnit("eval/p*", "fraction", "fraction of samples"),
    MetricUnit("losses/entropy", "ratio", "nats per token"),
    MetricUnit("losses/clip_fraction", "fraction", "fraction of tokens"),
    MetricUnit("losses/grad_norm", "ratio", "L2 norm"),
    MetricUnit("losses/skipped", "flag", "0 / 1"),
    MetricUnit("losses/*", "loss", "loss"),
    MetricUnit("train/learning_rate", "ratio", "learning rate"),
    MetricUnit("train/tokens", "count", "tokens"),
    MetricUnit("completions/truncated", "fraction", "fraction of samples"),
    MetricUnit("completions/length_*", "count", "tokens"),
    MetricUnit("sandbox/verdict_*", "fraction", "fraction of samples"),
    MetricUnit("sandbox/errors", "count", "failed sandbox starts"),
    MetricUnit("timing/rank_jitter", "percentile points", "percentile points"),
    MetricUnit("timing/repeat_cv", "ratio", "CV (sd / mean)"),
    MetricUnit("timing/degraded_cv", "ratio", "CV (sd / mean)"),
    MetricUnit("timing/degraded_slowdown_rate", "fraction", "fraction of costs"),
    MetricUnit("staleness/age_*", "fraction", "fraction of rollouts"),
    MetricUnit("staleness/dropped", "count", "samples"),
    MetricUnit("staleness/*", "count", "policy versions"),
    MetricUnit("time/overhead_share", "fraction", "fraction of step time"),
    MetricUnit("*_s", "seconds", "seconds"),
)


def matches(pattern: str, key: str) -> bool:
    """`key` is `pattern`, or fills its one `*` with any text (possibly none)."""
    if "*" not in pattern:
        return key == pattern
    head, tail = pattern.split("*", 1)
    return len(key) >= len(head) + len(tail) and key.startswith(head) and key.endswith(tail)


def metric_unit(key: str) -> MetricUnit | None:
    """The first entry of METRIC_UNITS matching `key`; None for a key no entry names (the
    chart is labelled with the key alone and autoscaled)."""
    return next((entry for entry in METRIC_UNITS if matches(entry.pattern, key)), None)


def unit_of(key: str) -> Unit | None:
    entry = metric_unit(key)
    return None if entry is None else UNITS[entry.unit]


def table() -> dict:
    """The table as the pages read it (JSON): {"units": {name: Unit}, "metrics": [entry]}."""
    return {
        "units": {name: asdict(unit) for name, unit in UNITS.items()},
        "metrics": [asdict(entry) for entry in METRIC_UNITS],
    }
