"""Server paths that users name (a Timing job's package folder, a base model's folder): only
inside roots the operator configured, so that no answer tells a user anything about the rest
of the server's disk (docs/security.md, "Paths from users"). Plain Python, no Django."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path


def _inside(path: str, roots: Sequence[str]) -> bool:
    return any(Path(path).is_relative_to(root) for root in roots)


def resolve_under_roots(raw: str, roots: Sequence[Path]) -> Path | None:
    """The real path of `raw` when both the name and what it points to lie inside `roots`;
    None otherwise, the same whether or not the path exists.

    1. `raw` must be absolute: a relative one would depend on the server's working folder.
    2. Its name, with `..` collapsed (os.path.normpath), must lie inside a root as configured
       or as that root's real path: a name through `/proc/self/cwd` or `/proc/<pid>/root`,
       or a link outside the roots, is refused without looking at where it leads.
    3. Its real path (os.path.realpath: symlinks, `..` and /proc links followed; it needs no
       existing file, so it behaves the same whether the path exists or not) must lie inside
       a root's real path: a link inside a root that leads out of every root is refused.
    """
    if not raw or not os.path.isabs(raw):
        return None
    try:
        real_roots = [os.path.realpath(root) for root in roots]
        named_roots = [os.path.normpath(os.fspath(root)) for root in roots]
        if not _inside(os.path.normpath(raw), [*named_roots, *real_roots]):
            return None
        real = os.path.realpath(raw)
    except (OSError, ValueError):  # a NUL byte in the name
        return None
    return Path(real) if _inside(real, real_roots) else None


def roots_text(roots: Sequence[Path]) -> str:
    """The roots as an error message names them."""
    return ", ".join(str(root) for root in roots) or "(no folder configured)"
