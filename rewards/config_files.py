"""Reward configurations from a YAML or JSON file: the built-in set (builtin_configs.yaml)
or an operator's file, every entry checked by engine.RewardConfig.from_dict.

Plain Python, no Django: reading stores nothing (rewards/services.do_load_configs does), so
the simulate_rewards command can simulate a file's configurations without saving them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from rewards import engine

BUILTIN_CONFIGS = Path(__file__).resolve().parent / "builtin_configs.yaml"


def read_config_file(path: Path) -> list[tuple[engine.RewardConfig, str]]:
    """(config, description) for each entry of a YAML or JSON list of configurations; every
    entry is checked before any is returned (ValueError naming the entry and the field)."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"configs: cannot read {path}: {exc}") from None
    if isinstance(data, dict) and "configs" in data:
        data = data["configs"]
    if not isinstance(data, list) or not data:
        raise ValueError(f"configs: {path} must hold a non-empty list of configurations")
    read, names = [], set()
    for index, entry in enumerate(data):
        label = entry.get("name") if isinstance(entry, dict) else None
        where = f"configs[{index}]" + (f" ({label})" if label else "")
        try:
            entry = dict(entry) if isinstance(entry, dict) else entry
            description = entry.pop("description", "") if isinstance(entry, dict) else ""
            config = engine.RewardConfig.from_dict(entry)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if config.name in names:
            raise ValueError(f"{where}: name: {config.name!r} appears twice")
        names.add(config.name)
        read.append((config, str(description or "")))
    return read
