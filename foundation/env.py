"""Typed readers for settings taken from the environment.

Each helper fails loudly, naming the variable, when a value cannot be used: a typo in a
deployment must stop the start-up, not run with a silent default.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse


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
            f"{name}={redact_url(raw)!r} has scheme {scheme!r}; "
            f"expected one of {', '.join(sorted(schemes))}"
        )
    return raw


def env_paths(name: str, default: list[Path]) -> list[Path]:
    """Absolute folders separated by os.pathsep (`:`), in order; unset or empty: `default`."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return list(default)
    paths = [Path(part.strip()) for part in raw.split(os.pathsep) if part.strip()]
    relative = [str(path) for path in paths if not path.is_absolute()]
    if relative:
        raise ConfigError(f"{name}={raw!r}: {', '.join(relative)} is not an absolute path")
    return paths


# --- secrets in messages ----------------------------------------------------------------------

MASK = "***"
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>]*")
_PASSWORD_MIN_CHARS = 4
"""Shorter passwords (and pieces of one) are masked inside URLs only: masking every
occurrence of two letters in a message would make it unreadable."""


def _userinfo_end(rest: str) -> int:
    """Where the userinfo of a URL's part after "://" ends (its last "@" before the host's
    end), or -1. An unencoded "@" in the password is allowed for: the host ends at the first
    "/", "?" or "#" after the first "@"."""
    first_at = rest.find("@")
    if first_at < 0:
        return -1
    ends = [i for i in (rest.find(c, first_at) for c in "/?#") if i >= 0]
    return rest.rfind("@", 0, min(ends, default=len(rest)))


def url_password(url: str) -> str:
    """The password of `url` as written ("" when it has none)."""
    _, sep, rest = url.partition("://")
    end = _userinfo_end(rest) if sep else -1
    if end < 0 or rest.startswith("/"):
        return ""
    user, colon, password = rest[:end].partition(":")
    return password if colon and "/" not in user else ""


def redact_url(url: str) -> str:
    """`url` with its password masked: scheme://user:***@host/... (unchanged without one)."""
    password = url_password(url)
    if not password:
        return url
    scheme, _, rest = url.partition("://")
    end = _userinfo_end(rest)
    user = rest[:end].partition(":")[0]
    return f"{scheme}://{user}:{MASK}@{rest[end + 1 :]}"


def redact(text: str, *urls: str | None) -> str:
    """`text` (a message, an exception's text) with the password of every URL in it masked,
    and the passwords of `urls` (the configured ones) masked wherever they appear on their
    own: a driver's error may quote a fragment of a URL it could not parse."""
    text = _URL_IN_TEXT.sub(lambda match: redact_url(match.group()), text)
    for url in urls:
        password = url_password(url or "")
        # the pieces too: a parser that stops at a "/" or "@" of the password quotes a piece
        secrets = {password, unquote(password), *re.split(r"[/?#@:]", password)}
        for secret in sorted(secrets, key=len, reverse=True):
            if len(secret) >= _PASSWORD_MIN_CHARS:
                text = text.replace(secret, MASK)
    return text
