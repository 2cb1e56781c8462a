"""Uploaded JSON-lines files (completions, judge pairs): every line an object; a line that is
not is reported by its number, and the others are still read."""

from __future__ import annotations

import json
from collections.abc import Iterator

MAX_UPLOAD_BYTES = 50 * 1024 * 1024


def read_upload(handle, field: str, max_bytes: int = MAX_UPLOAD_BYTES) -> tuple[str, str] | None:
    """(file name, text) of an uploaded file (a Django UploadedFile, or None: no file);
    ValueError naming `field` when it is too large."""
    if handle is None:
        return None
    if handle.size > max_bytes:
        raise ValueError(f"{field}: {handle.size} bytes; at most {max_bytes}")
    return handle.name, handle.read().decode("utf-8", errors="replace")


def objects(text: str, errors: list[dict]) -> Iterator[tuple[int, dict]]:
    """(line number, object) of each line that holds a JSON object; blank lines skipped;
    every other line appended to `errors` as {line, error}."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append({"line": number, "error": f"not JSON ({exc.msg})"})
            continue
        if not isinstance(row, dict):
            errors.append({"line": number, "error": "not a JSON object"})
            continue
        yield number, row
