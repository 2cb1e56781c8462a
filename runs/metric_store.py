"""SQL for writing and reading metric points, one implementation per database vendor.

The ORM would build 5,000 model instances per batch; these statements hand the columns
to the database in one round trip instead. Callers hold a transaction (`services`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db import connection

from runs.downsample import bucket_count, downsample_indices

POINTS = "runs_metricpoint"
SERIES = "runs_metricseries"


@dataclass
class SeriesColumns:
    """One series as columns: steps ascending, NaN for NaN values, times in epoch seconds."""

    steps: np.ndarray
    values: np.ndarray
    times: np.ndarray
    total: int
    downsampled: bool


@dataclass
class SeriesWrite:
    """What one batch writes into one series."""

    series_id: int
    steps: list[int]
    values: list[float]  # NaN for NaN


# --- writes ---------------------------------------------------------------------------------


def _db_value(value: float) -> float | None:
    return None if math.isnan(value) else value


def _pg_array(items) -> str:
    """A PostgreSQL array literal. Joining text in C beats psycopg's per-element dumping
    (about 40 ms for a 5,000-point batch)."""
    return "{" + ",".join(items) + "}"


def _upsert_postgresql(writes: list[SeriesWrite], recorded_at: datetime) -> dict[int, int]:
    """Upsert every point; returns {series_id: points newly inserted}."""
    series_ids, steps, values = [], [], []
    for write in writes:
        series_ids.append(f"{write.series_id}," * (len(write.steps) - 1) + str(write.series_id))
        steps.append(",".join(map(str, write.steps)))
        values.append(",".join("NULL" if math.isnan(v) else repr(v) for v in write.values))
    sql = f"""
        WITH upserted AS (
            INSERT INTO {POINTS} (series_id, step, value, recorded_at)
            SELECT s, st, v, %s FROM unnest(%s::bigint[], %s::bigint[], %s::float8[]) AS t(s, st, v)
            ON CONFLICT (series_id, step)
            DO UPDATE SET value = EXCLUDED.value, recorded_at = EXCLUDED.recorded_at
            RETURNING series_id, (xmax = 0) AS inserted
        )
        SELECT series_id, count(*) FILTER (WHERE inserted) FROM upserted GROUP BY series_id
    """
    params = [recorded_at, _pg_array(series_ids), _pg_array(steps), _pg_array(values)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {series_id: inserted for series_id, inserted in cursor.fetchall()}


def _upsert_sqlite(writes: list[SeriesWrite], recorded_at: datetime) -> dict[int, int]:
    stamp = connection.ops.adapt_datetimefield_value(recorded_at)
    rows = [
        (w.series_id, step, _db_value(value), stamp)
        for w in writes
        for step, value in zip(w.steps, w.values, strict=True)
    ]
    inserted: dict[int, int] = {}
    with connection.cursor() as cursor:
        # Points of this batch already stored: the rest will be new (the write lock of the
        # IMMEDIATE transaction keeps anyone else from adding them meanwhile).
        for write in writes:
            existing = 0
            for start in range(0, len(write.steps), 500):
                chunk = write.steps[start : start + 500]
                cursor.execute(
                    f"SELECT count(*) FROM {POINTS} WHERE series_id = %s "
                    f"AND step IN ({', '.join(['%s'] * len(chunk))})",
                    [write.series_id, *chunk],
                )
                existing += cursor.fetchone()[0]
            inserted[write.series_id] = len(write.steps) - existing
        cursor.executemany(
            f"INSERT INTO {POINTS} (series_id, step, value, recorded_at) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (series_id, step) DO UPDATE "
            "SET value = excluded.value, recorded_at = excluded.recorded_at",
            rows,
        )
    return inserted


_UPSERT = {"postgresql": _upsert_postgresql, "sqlite": _upsert_sqlite}


def upsert_points(writes: list[SeriesWrite], recorded_at: datetime) -> dict[int, int]:
    return _UPSERT[connection.vendor](writes, recorded_at)


def update_series_summaries(writes: list[SeriesWrite], inserted: dict[int, int]) -> None:
    """Fold one batch into each series' count, step range, last value and NaN count."""
    rows = []
    for write in writes:
        last = max(range(len(write.steps)), key=write.steps.__getitem__)
        rows.append(
            (
                inserted.get(write.series_id, 0),
                min(write.steps),
                write.steps[last],
                _db_value(write.values[last]),
                sum(1 for v in write.values if math.isnan(v)),
                write.series_id,
            )
        )
    # CASE keeps last_value when an old step is re-sent behind the newest one.
    sql = f"""
        UPDATE {SERIES} SET
            count = count + %s,
            first_step = CASE WHEN first_step IS NULL OR %s < first_step THEN %s ELSE first_step END,
            last_value = CASE WHEN last_step IS NULL OR %s >= last_step THEN %s ELSE last_value END,
            last_step = CASE WHEN last_step IS NULL OR %s > last_step THEN %s ELSE last_step END,
            nan_count = nan_count + %s
        WHERE id = %s
    """
    params = [
        (added, lo, lo, hi, last_value, hi, hi, nans, sid)
        for added, lo, hi, last_value, nans, sid in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


# --- reads ----------------------------------------------------------------------------------


def _columns(rows: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not rows:
        empty = np.array([], dtype=np.float64)
        return np.array([], dtype=np.int64), empty, empty
    steps, values, times = zip(*rows, strict=True)
    return (
        np.array(steps, dtype=np.int64),
        np.array([np.nan if v is None else v for v in values], dtype=np.float64),
        np.array(times, dtype=np.float64),
    )


def _epoch(column: str) -> str:
    if connection.vendor == "postgresql":
        return f"extract(epoch from {column})::float8"
    return f"(julianday({column}) - 2440587.5) * 86400.0"


def _read_full(series_ids: list[int]) -> dict[int, list[tuple]]:
    if not series_ids:
        return {}
    rows: dict[int, list[tuple]] = {sid: [] for sid in series_ids}
    placeholders = ", ".join(["%s"] * len(series_ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT series_id, step, value, {_epoch('recorded_at')} FROM {POINTS} "
            f"WHERE series_id IN ({placeholders}) ORDER BY series_id, step",
            series_ids,
        )
        for series_id, step, value, time in cursor.fetchall():
            rows[series_id].append((step, value, time))
    return rows


@dataclass
class SeriesInfo:
    series_id: int
    count: int
    first_step: int | None
    last_step: int | None
    nan_count: int


def _read_downsampled_postgresql(infos: list[SeriesInfo], max_points: int) -> dict[int, list]:
    """The bucketed min/max/NaN selection of `runs.downsample`, done inside PostgreSQL."""
    ids = [i.series_id for i in infos]
    firsts = [i.first_step for i in infos]
    spans = [i.last_step - i.first_step + 1 for i in infos]
    n_buckets = [bucket_count(max_points, may_hold_nan=i.nan_count > 0) for i in infos]
    sql = f"""
        WITH s AS (
            SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::float8[], %s::float8[])
                AS s(id, first_step, span, n_buckets)
        ),
        p AS (
            SELECT p.series_id, p.step, p.value, extract(epoch from p.recorded_at)::float8 AS t,
                   LEAST(floor((p.step - s.first_step)::float8 * s.n_buckets / s.span),
                         s.n_buckets - 1) AS bucket
            FROM {POINTS} p JOIN s ON p.series_id = s.id
        ),
        picked AS (
            SELECT series_id,
                   min(ARRAY[value, step::float8, t]) FILTER (WHERE value IS NOT NULL) AS lo,
                   max(ARRAY[value, step::float8, t]) FILTER (WHERE value IS NOT NULL) AS hi,
                   min(ARRAY[step::float8, t]) FILTER (WHERE value IS NULL) AS nan
            FROM p GROUP BY series_id, bucket
        )
        SELECT series_id, lo[2], lo[1], lo[3] FROM picked WHERE lo IS NOT NULL
        UNION SELECT series_id, hi[2], hi[1], hi[3] FROM picked WHERE hi IS NOT NULL
        UNION SELECT series_id, nan[1], NULL, nan[2] FROM picked WHERE nan IS NOT NULL
        UNION SELECT p.series_id, p.step, p.value, extract(epoch from p.recorded_at)::float8
              FROM {POINTS} p JOIN s ON p.series_id = s.id
              WHERE p.step = s.first_step OR p.step = s.first_step + s.span - 1
    """
    out: dict[int, list] = {sid: [] for sid in ids}
    with connection.cursor() as cursor:
        cursor.execute(sql, [ids, firsts, spans, n_buckets])
        for series_id, step, value, time in cursor.fetchall():
            out[series_id].append((int(step), value, time))
    for rows in out.values():
        rows.sort(key=lambda row: row[0])
    return out


def _read_downsampled_in_python(infos: list[SeriesInfo], max_points: int) -> dict[int, list]:
    full = _read_full([i.series_id for i in infos])
    out = {}
    for info in infos:
        rows = full[info.series_id]
        steps, values, _ = _columns(rows)
        keep = downsample_indices(steps, values, max_points, may_hold_nan=info.nan_count > 0)
        out[info.series_id] = [rows[i] for i in keep]
    return out


_READ_DOWNSAMPLED = {
    "postgresql": _read_downsampled_postgresql,
    "sqlite": _read_downsampled_in_python,
}


def read_series(infos: list[SeriesInfo], max_points: int) -> dict[int, SeriesColumns]:
    """Each series, whole when it has at most `max_points` points, else downsampled."""
    small = [i.series_id for i in infos if i.count <= max_points]
    large = [i for i in infos if i.count > max_points]
    rows = _read_full(small)
    if large:
        rows.update(_READ_DOWNSAMPLED[connection.vendor](large, max_points))
    out = {}
    for info in infos:
        steps, values, times = _columns(rows[info.series_id])
        out[info.series_id] = SeriesColumns(
            steps, values, times, total=info.count, downsampled=info.count > max_points
        )
    return out
