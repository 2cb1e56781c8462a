"""Uploaded JSON-lines files (completions, judge pairs): every line an object; a line that is
not, or that holds a NUL byte, is reported by its number, and the others are still read. The
file is bounded in bytes and lines (settings CODEOPT_MAX_UPLOAD_BYTES, _LINES) before any of
it is parsed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from foundation import inputs


def read_upload(handle, field: str) -> tuple[str, str] | None:
    """(file name, text) of an uploaded file (a Django UploadedFile, or None: no file);
    InputError naming `field` when it is too large, too long or not UTF-8 text."""
    if handle is None:
        return None
    _within_bytes(field, handle.size)
    return _checked(field, handle.name, handle.read())


def read_file(path: Path | None, field: str) -> tuple[str, str] | None:
    """The same for a file named on a command line (None: no file)."""
    if path is None:
        return None
    if not path.is_file():
        raise inputs.InputError(field, f"no file {path}")
    _within_bytes(field, path.stat().st_size)
    return _checked(field, path.name, path.read_bytes())


def _within_bytes(field: str, size: int) -> None:
    from django.conf import settings

    limit = settings.CODEOPT_MAX_UPLOAD_BYTES
    if size > limit:
        raise inputs.InputError(field, f"{size:,} bytes; at most {limit:,} per upload")


def _checked(field: str, name: str, raw: bytes) -> tuple[str, str]:
    from django.conf import settings

    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise inputs.InputError(field, f"not UTF-8 text (byte {exc.start:,})") from None
    inputs.lines_within(field, content, max_lines=settings.CODEOPT_MAX_UPLOAD_LINES)
    return inputs.text("file name", name, max_chars=255), content


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
        refusal = inputs.nested_refused(row, max_chars=inputs.MAX_UPLOAD_FIELD_CHARS)
        if refusal is not None:
            errors.append({"line": number, "error": str(refusal)})
            continue
        yield number, row
