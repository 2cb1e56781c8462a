"""Typed readers for settings taken from the environment.

Each helper fails loudly, naming the variable, when a value cannot be used: a typo in a
deployment must stop the start-up, not run with a silent default.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse


class ConfigError(RuntimeError):
    """A setting read from the environment has a value that cannot be used."""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(
        f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off"
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={value} is below its minimum {minimum}")
    return value


def env_url(name: str, default: str, *, schemes: set[str]) -> str:
    """A URL whose scheme must be one of `schemes`."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    scheme = urlparse(raw).scheme
    if scheme not in schemes:
        raise ConfigError(
            f"{name}={raw!r} has scheme {scheme!r}; expected one of {', '.join(sorted(schemes))}"
        )
    return raw
