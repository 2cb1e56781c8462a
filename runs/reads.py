"""Read-only assembly for the run pages and the metrics API.

A run's stored config as columns (run list), and the runs of a comparison with what they can
be grouped by and the config keys they differ in: these take runs already loaded and make no
queries. A run's stored metrics:
its series for charts (`read_metrics`, through runs/metric_store.py's rollups) and the last
values the run list shows (`latest_values`).
"""

from __future__ import annotations

import json
from collections import Counter

from runs import metric_store
from runs.ingest import encode_value
from runs.models import MetricSeries, Run

PREFERRED_COLUMNS = ("model", "reward_config", "group_size", "learning_rate")
"""Config columns the run list shows first, and shows by default when a run has them."""
MAX_CONFIG_COLUMNS = 40
"""The run list offers at most this many config keys (the most common), to stay readable."""

Scalar = str | int | float | bool | None


def config_value(config_text: str):
    """A run's stored config as the JSON value it was sent as; text that is not JSON as
    itself (a config stored verbatim need not be JSON); none: None."""
    if not config_text:
        return None
    try:
        return json.loads(config_text)
    except ValueError:
        return config_text


def config_values(config_text: str) -> dict[str, Scalar]:
    """The scalar values of a run's stored config (its verbatim text, read as JSON), nested
    objects flattened to dotted keys (`optimizer.lr`), lists as their JSON text. {} when the
    text is not a JSON object: a config stored verbatim need not be JSON."""
    try:
        config = json.loads(config_text) if config_text else {}
    except ValueError:
        return {}
    if not isinstance(config, dict):
        return {}
    flat: dict[str, Scalar] = {}

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}{key}.", inner)
        elif isinstance(value, list):
            flat[prefix[:-1]] = json.dumps(value)
        else:
            flat[prefix[:-1]] = value

    walk("", config)
    return flat


def run_config(run) -> dict[str, Scalar]:
    """`config_values` of a run, with the name of the reward configuration it references
    when its config does not say (a run created through the API names it apart). Reads
    `run.reward_config`: select it with the runs."""
    values = config_values(run.config)
    if "reward_config" not in values and run.reward_config is not None:
        values["reward_config"] = run.reward_config.name
    return values


def config_columns(configs: list[dict[str, Scalar]]) -> list[str]:
    """Config keys to offer as columns: PREFERRED_COLUMNS that some run has, then the others
    by how many runs have them (most first), then by name; at most MAX_CONFIG_COLUMNS."""
    counts = Counter(key for config in configs for key in config)
    preferred = [key for key in PREFERRED_COLUMNS if key in counts]
    others = sorted(
        (key for key in counts if key not in PREFERRED_COLUMNS), key=lambda k: (-counts[k], k)
    )
    return (preferred + others)[:MAX_CONFIG_COLUMNS]


def default_columns(columns: list[str]) -> list[str]:
    """The config columns shown before the user picks: the preferred ones, else the first 3."""
    shown = [key for key in columns if key in PREFERRED_COLUMNS]
    return shown or columns[:3]


def config_cell(config: dict[str, Scalar], key: str) -> dict:
    """A config value as the run list shows it ("text") and sorts it ("sort"; "number" when
    it sorts as a number, so 1e-05 sorts below 0.0003); "text" None where the config lacks
    `key`."""
    value = config.get(key)
    if key not in config:
        cell = {"text": None, "sort": "", "number": False}
    elif isinstance(value, bool) or value is None:
        cell = {"text": json.dumps(value), "sort": json.dumps(value), "number": False}
    elif isinstance(value, int | float):
        cell = {"text": f"{value:g}", "sort": repr(float(value)), "number": True}
    else:
        cell = {"text": str(value), "sort": str(value), "number": False}
    return {"key": key, **cell}


def config_table(runs) -> tuple[list[str], list[list[dict]]]:
    """The run list's config columns (`config_columns`) and each run's cells in them."""
    configs = [run_config(run) for run in runs]
    keys = config_columns(configs)
    return keys, [[config_cell(config, key) for key in keys] for config in configs]


def compared_config(run) -> dict[str, Scalar]:
    """`run_config` of a run with its model's name when its config does not say (a run
    created through the API names it apart): what the compare page tells runs apart by."""
    values = run_config(run)
    if "model" not in values and run.model_name:
        values["model"] = run.model_name
    return values


def run_label(run) -> str:
    """A run as the compare page names it, in its table and its legends: "#12 demo"."""
    return f"#{run.pk} {run.name}"


def compared_runs(runs) -> list[dict]:
    """The compare page's runs as its script reads them: id, name, tags, config values (what
    runs can be grouped by) and their texts as the page's config table shows them."""
    out = []
    for run in runs:
        config = compared_config(run)
        out.append(
            {
                "id": run.pk,
                "name": run_label(run),
                "tags": list(run.tags or []),
                "config": config,
                "configText": {key: _value_text(value) for key, value in config.items()},
            }
        )
    return out


def _same_value(value: Scalar) -> tuple[str, object]:
    """What two config values are compared by: 1 and 1.0 are the same learning rate, but
    true is not 1 and "1" is not 1."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, int | float):
        return ("number", repr(float(value)))  # repr: a NaN the same as another NaN
    return ("text", value)


def _value_text(value: Scalar) -> str:
    """A config value as the table shows it: text as itself, anything else as its JSON;
    text that would read as a number, true, false or null ("1"), or empty, quoted as JSON.
    (A list arrives as its JSON text, `config_values`: shown as itself.)"""
    if not isinstance(value, str) or not value:
        return json.dumps(value)
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return value if isinstance(parsed, list | dict | str) else json.dumps(value)


def config_differences(runs) -> list[dict]:
    """The compare page's "what changed": the config keys whose values differ among `runs`,
    each {"key", "values"} with one value text per run (in the order of `runs`), None where
    that run's config lacks the key. Configs as `compared_config` reads them: nested keys
    dotted, the reward configuration and model included. A config stored verbatim that is
    not a JSON object has no keys here. Keys in the run list's order: PREFERRED_COLUMNS,
    then by name. Makes no queries (select `reward_config` with the runs)."""
    configs = [compared_config(run) for run in runs]
    keys = {key for config in configs for key in config}
    ordered = [key for key in PREFERRED_COLUMNS if key in keys]
    ordered += sorted(keys - set(PREFERRED_COLUMNS))
    differences = []
    for key in ordered:
        seen = {_same_value(config[key]) if key in config else ("missing",) for config in configs}
        if len(seen) > 1:
            values = [_value_text(c[key]) if key in c else None for c in configs]
            differences.append({"key": key, "values": values})
    return differences


# --- stored metrics -------------------------------------------------------------------------


def read_metrics(run: Run, keys: list[str] | None, max_points: int) -> dict:
    """Series of a run for charts: {key: {steps, values, times, total, downsampled}}."""
    series = MetricSeries.objects.filter(run=run)
    if keys:
        series = series.filter(key__in=keys)
    infos = {
        s.id: (
            s.key,
            metric_store.SeriesInfo(s.id, s.count, s.first_step, s.last_step, s.nan_count),
        )
        for s in series.only("id", "key", "count", "first_step", "last_step", "nan_count")
    }
    columns = metric_store.read_series([info for _, info in infos.values()], max_points)
    out = {}
    for series_id, (key, _) in sorted(infos.items(), key=lambda item: item[1][0]):
        col = columns[series_id]
        out[key] = {
            "steps": col.steps.tolist(),
            "values": [encode_value(v) for v in col.values.tolist()],
            "times": [round(t, 3) for t in col.times.tolist()],
            "total": col.total,
            "downsampled": col.downsampled,
        }
    return out


def latest_values(run_ids: list[int], keys: list[str]) -> dict[int, dict[str, float | str]]:
    """{run_id: {key: last value}} for the run list's columns."""
    out: dict[int, dict] = {rid: {} for rid in run_ids}
    rows = MetricSeries.objects.filter(run_id__in=run_ids, key__in=keys).values_list(
        "run_id", "key", "last_value"
    )
    for run_id, key, value in rows:
        out[run_id][key] = encode_value(value)
    return out
