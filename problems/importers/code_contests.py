"""Read DeepMind code_contests records (JSON array, JSON lines or Parquet) into plain data.

No Django; `problems.services` stores the result. Each record becomes an `ImportedProblem`
or a `RecordError` naming the record and what is wrong with it, so one bad record never stops
the rest. Shapes handled:

- JSON/JSONL: tests and solutions as lists of objects (`[{"input": ..., "output": ...}]`) or
  column-oriented (`{"input": [...], "output": [...]}`, as the Parquet files and the
  HuggingFace datasets export them);
- Parquet: the same columns, read batch by batch with pyarrow so a large file is never held
  whole in memory;
- `time_limit` as protobuf text (`seconds: 2\\nnanos: 500000000\\n`), as `{seconds, nanos}`, as
  a number of seconds, or missing (then the default).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import orjson

from execution.package import DEFAULT_TIME_LIMIT
from problems.importers.kattis import MAX_TEST_BYTES, ImportedProblem, ImportedTest

FORMAT = "code_contests"
EXTENSIONS = (".json", ".jsonl", ".ndjson", ".parquet")
# code_contests' Solution.Language enum; only Python 3 and C++ run in the sandbox today, the
# others are stored (and counted by the pipeline as not runnable here).
LANGUAGE_CODES = {0: "unknown", 1: "python2", 2: "cpp", 3: "python", 4: "java"}
LANGUAGE_NAMES = {"PYTHON": "python2", "CPP": "cpp", "PYTHON3": "python", "JAVA": "java"}
# code_contests' ContestProblem.Source enum
SOURCES = {
    0: "unknown",
    1: "codechef",
    2: "codeforces",
    3: "hackerearth",
    4: "codejam",
    5: "atcoder",
    6: "aizu",
}
TEST_FIELDS = (
    ("public_tests", "sample", "public"),
    ("private_tests", "correctness", "private"),
    ("generated_tests", "correctness", "generated"),
)
SOLUTION_FIELDS = (("solutions", "accepted"), ("incorrect_solutions", "wrong"))
BATCH_ROWS = 64  # Parquet rows per batch: records carry many tests and solutions


class RecordError(ValueError):
    """A record that cannot be imported; the message names the record and the field."""


def parse_time_limit(value) -> float:
    """Seconds from protobuf text, a {seconds, nanos} mapping, a number, or None."""
    if value is None or value == "":
        return DEFAULT_TIME_LIMIT
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, dict):
        seconds = float(value.get("seconds") or 0) + float(value.get("nanos") or 0) / 1e9
    elif isinstance(value, str):
        fields = dict(re.findall(r"(seconds|nanos)\s*:\s*(\d+)", value))
        if not fields and value.strip():
            raise ValueError(f"time_limit: cannot read {value[:60]!r}")
        seconds = int(fields.get("seconds", 0)) + int(fields.get("nanos", 0)) / 1e9
    else:
        raise ValueError(f"time_limit: unexpected {type(value).__name__}")
    if seconds <= 0:
        return DEFAULT_TIME_LIMIT  # code_contests stores 0 when the limit is unknown
    return seconds


def _rows(value, fields: tuple[str, ...], where: str) -> list[dict]:
    """A list of row objects from either a list of objects or an object of columns."""
    if value is None:
        return []
    if isinstance(value, dict):
        columns = [value.get(f) or [] for f in fields]
        if len({len(c) for c in columns}) > 1:
            lengths = ", ".join(f"{f}={len(c)}" for f, c in zip(fields, columns, strict=True))
            raise ValueError(f"{where}: columns of different lengths ({lengths})")
        return [dict(zip(fields, row, strict=True)) for row in zip(*columns, strict=True)]
    if isinstance(value, list):
        if not all(isinstance(row, dict) for row in value):
            raise ValueError(f"{where}: expected objects with {', '.join(fields)}")
        return value
    raise ValueError(f"{where}: expected a list or an object of columns")


def _language(code, where: str) -> str:
    if isinstance(code, str):
        if code.upper() in LANGUAGE_NAMES:
            return LANGUAGE_NAMES[code.upper()]
        if not code.isdigit():
            raise ValueError(f"{where}: unknown language {code!r}")
        code = int(code)
    if code not in LANGUAGE_CODES:
        raise ValueError(f"{where}: unknown language code {code!r}")
    return LANGUAGE_CODES[code]


def slug_of(name: str) -> str:
    return "cc-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:110]


def _text(value, where: str) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        raise ValueError(f"{where}: expected text, got {type(value).__name__}")
    return value


def record_to_problem(record: dict, origin: str) -> ImportedProblem:
    """One code_contests record as an ImportedProblem; ValueError naming the field at fault.

    A test whose expected output is missing, or whose input or output is over
    MAX_TEST_BYTES, is left out with a warning; a record left with no test is an error."""
    if not isinstance(record, dict):
        raise ValueError(f"record: expected an object, got {type(record).__name__}")
    name = record.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name: missing or empty")
    for field in ("input_file", "output_file"):
        if (record.get(field) or "").strip():
            raise ValueError(f"{field}: reads {record[field]!r}; only stdin/stdout is supported")
    warnings: list[str] = []
    tests: list[ImportedTest] = []
    for field, kind, prefix in TEST_FIELDS:
        for index, row in enumerate(_rows(record.get(field), ("input", "output"), field)):
            where = f"{field}[{index}]"
            if row.get("input") is None:
                warnings.append(f"{where}: no input; test left out")
                continue
            if row.get("output") is None:
                warnings.append(f"{where}: no expected output; test left out")
                continue
            data = _text(row["input"], f"{where}.input").encode()
            answer = _text(row["output"], f"{where}.output").encode()
            if max(len(data), len(answer)) > MAX_TEST_BYTES:
                warnings.append(
                    f"{where}: {max(len(data), len(answer))} bytes; at most {MAX_TEST_BYTES}; "
                    "test left out"
                )
                continue
            tests.append(ImportedTest(f"{prefix}/{index:03d}", kind, data, answer))
    if not tests:
        raise ValueError("tests: no test with both input and expected output")
    solutions = []
    for field, label in SOLUTION_FIELDS:
        for index, row in enumerate(_rows(record.get(field), ("language", "solution"), field)):
            where = f"{field}[{index}]"
            language = _language(row.get("language"), f"{where}.language")
            code = _text(row.get("solution"), f"{where}.solution")
            solutions.append(
                {
                    "name": f"{field}/{index:04d}",
                    "language": language,
                    "code": code,
                    "verdict_label": label,
                }
            )
    try:
        source = SOURCES.get(int(record.get("source") or 0), "unknown")
    except (TypeError, ValueError):
        source = str(record.get("source"))
    tags = record.get("cf_tags") or []
    if not isinstance(tags, list):
        raise ValueError("cf_tags: expected a list")
    memory = record.get("memory_limit_bytes")
    meta = {
        key: record.get(key)
        for key in ("difficulty", "cf_rating", "cf_contest_id", "cf_index", "cf_points")
        if record.get(key) not in (None, "")
    }
    if memory:
        meta["memory_limit_bytes"] = int(memory)
    return ImportedProblem(
        slug=slug_of(name),
        title=name.strip()[:200],
        statement=_text(record.get("description") or "", "description"),
        time_limit_s=parse_time_limit(record.get("time_limit")),
        source=f"code_contests/{source}",
        license="CC BY 4.0 (DeepMind code_contests)",
        tags=[str(t) for t in tags if str(t).strip()],
        checker={},
        validator_source="",
        validator_flags="",
        origin=origin,
        tests=tests,
        solutions=solutions,
        memory_limit_mb=max(1, int(memory) // (1024 * 1024)) if memory else None,
        meta=meta,
        warnings=warnings,
    )


def _json_records(path: Path) -> Iterator[tuple[str, object]]:
    data = path.read_bytes()
    stripped = data.lstrip()
    if stripped.startswith(b"["):
        try:
            records = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            yield f"{path.name}", RecordError(f"{path.name}: not valid JSON ({exc})")
            return
        for index, record in enumerate(records):
            yield f"{path.name}[{index}]", record
        return
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield f"{path.name}:{number}", orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            yield f"{path.name}:{number}", RecordError(f"not valid JSON ({exc})")


def _parquet_records(path: Path) -> Iterator[tuple[str, object]]:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several unrelated types for a bad file
        yield path.name, RecordError(f"{path.name}: not a readable Parquet file ({exc})")
        return
    row = 0
    for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
        for record in batch.to_pylist():
            yield f"{path.name}[{row}]", record
            row += 1


def count_records(path: Path) -> int | None:
    """How many records a file holds, when that is cheap to know (for the progress bar)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            return pq.ParquetFile(path).metadata.num_rows
        except Exception:  # a bad file is reported when read
            return None
    if path.suffix in (".jsonl", ".ndjson"):
        with open(path, "rb") as handle:
            return sum(1 for line in handle if line.strip())
    return None


def find_files(path: Path) -> list[Path]:
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.suffix in EXTENSIONS and p.is_file())


def read_records(path: Path) -> Iterator[tuple[str, ImportedProblem | RecordError]]:
    """(label, problem or error) for every record of every file at or below `path`."""
    for file in find_files(path):
        reader = _parquet_records if file.suffix == ".parquet" else _json_records
        for label, record in reader(file):
            if isinstance(record, RecordError):
                yield label, record
                continue
            try:
                yield label, record_to_problem(record, origin=f"{file.resolve()}#{label}")
            except (ValueError, TypeError, KeyError) as exc:
                name = record.get("name") if isinstance(record, dict) else None
                yield label, RecordError(f"{name or '(no name)'}: {exc}")
