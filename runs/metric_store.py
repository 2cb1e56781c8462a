"""SQL for writing and reading metric points, one implementation per database vendor.

The ORM would build 5,000 model instances per batch; these statements hand the columns
to the database in one round trip instead. Callers hold a transaction (`services`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db import IntegrityError, connection, transaction

from runs.downsample import downsample_indices
from runs.rollups import ROLLUP_WIDTHS, Extremes, Points, bucket_extremes, pick_level

POINTS = "runs_metricpoint"
SERIES = "runs_metricseries"
ROLLUPS = "runs_metricrollup"
_ROLLUP_COLUMNS = (
    "min_step",
    "min_value",
    "min_time",
    "max_step",
    "max_value",
    "max_time",
    "nan_step",
    "nan_time",
)


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
    steps: list[int]  # ascending
    values: list[float]  # NaN for NaN
    last_stored_step: int | None = None  # the series' last step before this batch

    @property
    def appends_only(self) -> bool:
        return self.last_stored_step is None or self.steps[0] > self.last_stored_step


# --- writes ---------------------------------------------------------------------------------


def _db_value(value: float) -> float | None:
    return None if math.isnan(value) else value


def _pg_array(items) -> str:
    """A PostgreSQL array literal. Joining text in C beats psycopg's per-element dumping
    (about 40 ms for a 5,000-point batch)."""
    return "{" + ",".join(items) + "}"


def _upsert_postgresql(writes: list[SeriesWrite], recorded_at: datetime) -> dict[int, int]:
    """Upsert every point; returns {series_id: points newly inserted}.

    A batch that only appends past each series' last stored step (a trainer's usual batch)
    is tried as a plain INSERT first: ON CONFLICT's speculative insertion costs twice as much
    per row. If a concurrent writer got there first, the unique violation rolls back the
    savepoint and the batch takes the ON CONFLICT path.
    """
    series_ids, steps, values = [], [], []
    for write in writes:
        series_ids.append(f"{write.series_id}," * (len(write.steps) - 1) + str(write.series_id))
        steps.append(",".join(map(str, write.steps)))
        values.append(",".join("NULL" if v != v else repr(v) for v in write.values))
    rows = f"""
        INSERT INTO {POINTS} (series_id, step, value, recorded_at)
        SELECT s, st, v, %s FROM unnest(%s::bigint[], %s::bigint[], %s::float8[]) AS t(s, st, v)
    """
    params = [recorded_at, _pg_array(series_ids), _pg_array(steps), _pg_array(values)]
    with connection.cursor() as cursor:
        if all(w.appends_only for w in writes):
            try:
                with transaction.atomic():
                    cursor.execute(rows, params)
                return {w.series_id: len(w.steps) for w in writes}
            except IntegrityError:
                pass
        cursor.execute(
            f"""
            WITH upserted AS (
                {rows}
                ON CONFLICT (series_id, step)
                DO UPDATE SET value = EXCLUDED.value, recorded_at = EXCLUDED.recorded_at
                RETURNING series_id, (xmax = 0) AS inserted
            )
            SELECT series_id, count(*) FILTER (WHERE inserted) FROM upserted GROUP BY series_id
            """,
            params,
        )
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
            first_step = CASE WHEN first_step IS NULL OR %s < first_step
                              THEN %s ELSE first_step END,
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


# --- rollups --------------------------------------------------------------------------------


def _epoch(column: str) -> str:
    if connection.vendor == "postgresql":
        return f"extract(epoch from {column})::float8"
    return f"(julianday({column}) - 2440587.5) * 86400.0"


def _in(values) -> tuple[str, list]:
    values = list(values)
    return ", ".join(["%s"] * len(values)), values


def _extremes_from_rows(rows: list[tuple]) -> Extremes:
    """Rows of (series_id, bucket, *_ROLLUP_COLUMNS) as Extremes (series = series id)."""
    if not rows:
        return bucket_extremes(Points.empty(), 1)
    columns = list(zip(*rows, strict=True))

    def ints(i):
        return np.array([-1 if v is None else v for v in columns[i]], dtype=np.int64)

    def floats(i):
        return np.array([np.nan if v is None else v for v in columns[i]], dtype=np.float64)

    return Extremes(
        ints(0),
        ints(1),
        ints(2),
        floats(3),
        floats(4),
        ints(5),
        floats(6),
        floats(7),
        ints(8),
        floats(9),
    )


def _read_rollups(series_ids: list[int], level: int, lo: int, hi: int) -> Extremes:
    """Stored rows of one level with lo <= bucket <= hi."""
    marks, ids = _in(series_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT series_id, bucket, {', '.join(_ROLLUP_COLUMNS)} FROM {ROLLUPS} "
            f"WHERE level = %s AND series_id IN ({marks}) AND bucket BETWEEN %s AND %s",
            [level, *ids, lo, hi],
        )
        return _extremes_from_rows(cursor.fetchall())


def _read_rollup_levels(series_ids: list[int], lo_step: int, hi_step: int) -> dict[int, Extremes]:
    """Stored rows of every level over the buckets covering [lo_step, hi_step], in one query."""
    marks, ids = _in(series_ids)
    ranges = " OR ".join(["(level = %s AND bucket BETWEEN %s AND %s)"] * len(ROLLUP_WIDTHS))
    params = [
        x
        for level, width in enumerate(ROLLUP_WIDTHS)
        for x in (level, lo_step // width, hi_step // width)
    ]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT level, series_id, bucket, {', '.join(_ROLLUP_COLUMNS)} FROM {ROLLUPS} "
            f"WHERE series_id IN ({marks}) AND ({ranges})",
            [*ids, *params],
        )
        rows = cursor.fetchall()
    by_level: dict[int, list] = {}
    for row in rows:
        by_level.setdefault(row[0], []).append(row[1:])
    return {level: _extremes_from_rows(group) for level, group in by_level.items()}


def _rollup_columns(level: int, extremes: Extremes) -> list[list]:
    """The columns of `_ROLLUP_NAMES` for these rows, None for a missing point."""

    def optional(steps: np.ndarray, other: np.ndarray) -> list:
        return [
            None if s < 0 or v != v else v
            for s, v in zip(steps.tolist(), other.tolist(), strict=True)
        ]

    def step_or_none(steps: np.ndarray) -> list:
        return [None if s < 0 else s for s in steps.tolist()]

    columns = [
        extremes.series.tolist(),
        [level] * len(extremes),
        extremes.bucket.tolist(),
        step_or_none(extremes.min_step),
        optional(extremes.min_step, extremes.min_value),
        optional(extremes.min_step, extremes.min_time),
        step_or_none(extremes.max_step),
        optional(extremes.max_step, extremes.max_value),
        optional(extremes.max_step, extremes.max_time),
        step_or_none(extremes.nan_step),
        optional(extremes.nan_step, extremes.nan_time),
    ]
    return columns


_ROLLUP_NAMES = ("series_id", "level", "bucket", *_ROLLUP_COLUMNS)
_ROLLUP_UPDATE = ", ".join(f"{name} = excluded.{name}" for name in _ROLLUP_COLUMNS)


def _write_rollups_postgresql(columns: list[list]) -> None:
    types = (
        "bigint",
        "smallint",
        "bigint",
        "bigint",
        "float8",
        "float8",
        "bigint",
        "float8",
        "float8",
        "bigint",
        "float8",
    )
    arrays = [_pg_array("NULL" if v is None else repr(v) for v in column) for column in columns]
    select = ", ".join(f"%s::{t}[]" for t in types)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {ROLLUPS} ({', '.join(_ROLLUP_NAMES)}) SELECT * FROM unnest({select}) "
            f"ON CONFLICT (series_id, level, bucket) DO UPDATE SET {_ROLLUP_UPDATE}",
            arrays,
        )


def _write_rollups_sqlite(columns: list[list]) -> None:
    rows = list(zip(*columns, strict=True))
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {ROLLUPS} ({', '.join(_ROLLUP_NAMES)}) "
            f"VALUES ({', '.join(['%s'] * len(_ROLLUP_NAMES))}) "
            f"ON CONFLICT (series_id, level, bucket) DO UPDATE SET {_ROLLUP_UPDATE}",
            rows,
        )


_WRITE_ROLLUPS = {"postgresql": _write_rollups_postgresql, "sqlite": _write_rollups_sqlite}


def _write_rollups(columns: list[list]) -> None:
    """Upsert rollup rows given as the columns of `_ROLLUP_NAMES`."""
    if columns[0]:
        _WRITE_ROLLUPS[connection.vendor](columns)


def update_rollups(writes: list[SeriesWrite], inserted: dict[int, int], recorded_at: datetime):
    """Fold a just-upserted batch into every rollup level of its series.

    1. Series whose batch only added points: each touched bucket's new extremes are found
       among its stored extremes and the batch's points (one query reads them all).
    2. A series where the batch overwrote stored points (an old extreme may be gone):
       level 0 is recomputed from the raw points of the touched buckets, each coarser level
       from the level below it.
    """
    appended = [w for w in writes if inserted.get(w.series_id, 0) == len(w.steps)]
    if appended:
        batch = Points(
            np.concatenate([np.full(len(w.steps), w.series_id, np.int64) for w in appended]),
            np.concatenate([np.asarray(w.steps, np.int64) for w in appended]),
            np.concatenate([np.asarray(w.values, np.float64) for w in appended]),
            np.full(sum(len(w.steps) for w in appended), recorded_at.timestamp()),
        )
        stored = _read_rollup_levels(
            [w.series_id for w in appended], int(batch.steps.min()), int(batch.steps.max())
        )
        columns: list[list] = [[] for _ in _ROLLUP_NAMES]
        for level, width in enumerate(ROLLUP_WIDTHS):
            # Stored rows over the batch's bucket range; a bucket none of a series' points
            # fall in comes out unchanged.
            old = stored.get(level)
            candidates = [batch] if old is None else [old.points(), batch]
            extremes = bucket_extremes(Points.concat(candidates), width)
            for column, values in zip(columns, _rollup_columns(level, extremes), strict=True):
                column += values
        _write_rollups(columns)
    for write in writes:
        if inserted.get(write.series_id, 0) != len(write.steps):
            rebuild_rollups(write.series_id, min(write.steps), max(write.steps))


def rebuild_rollups(series_id: int, first_step: int, last_step: int) -> None:
    """Recompute every level over the buckets covering [first_step, last_step] from the
    stored points (level 0) and the level below (coarser levels)."""
    for level, width in enumerate(ROLLUP_WIDTHS):
        lo, hi = first_step // width * width, (last_step // width + 1) * width - 1
        if level == 0:
            candidates = _read_points(series_id, lo, hi)
        else:
            finer = ROLLUP_WIDTHS[level - 1]
            candidates = _read_rollups([series_id], level - 1, lo // finer, hi // finer).points()
        with connection.cursor() as cursor:  # buckets an overwrite left without points go away
            cursor.execute(
                f"DELETE FROM {ROLLUPS} WHERE series_id = %s AND level = %s "
                "AND bucket BETWEEN %s AND %s",
                [series_id, level, lo // width, hi // width],
            )
        _write_rollups(_rollup_columns(level, bucket_extremes(candidates, width)))


def drop_from(series_id: int, step: int) -> int:
    """Delete the points of a series at `step` and after, then make its summary (count, step
    range, last value, NaN count) and its rollups those of the points left; the points
    deleted. (A resumed training run re-runs its steps from a checkpoint: what the killed
    attempt logged past it is not the run's.)"""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT min(step), max(step) FROM {POINTS} WHERE series_id = %s AND step >= %s",
            [series_id, step],
        )
        lo, hi = cursor.fetchone()
        if lo is None:
            return 0
        cursor.execute(
            f"DELETE FROM {POINTS} WHERE series_id = %s AND step >= %s", [series_id, step]
        )
        deleted = cursor.rowcount
        cursor.execute(
            f"SELECT count(*), min(step), max(step), sum(CASE WHEN value IS NULL THEN 1 ELSE 0 "
            f"END) FROM {POINTS} WHERE series_id = %s",
            [series_id],
        )
        count, first, last, nans = cursor.fetchone()
        cursor.execute(
            f"UPDATE {SERIES} SET count = %s, first_step = %s, last_step = %s, nan_count = %s, "
            f"last_value = (SELECT value FROM {POINTS} WHERE series_id = %s AND step = %s) "
            "WHERE id = %s",
            [count, first, last, nans or 0, series_id, last, series_id],
        )
    rebuild_rollups(series_id, lo, hi)
    return deleted


def drop_run_from(run_id: int, step: int) -> tuple[int, int | None]:
    """drop_from on every series of a run that reaches `step` (rows locked, in id order);
    a series left empty goes. (points deleted, the run's last step left)."""
    from django.db.models import Max

    from runs.models import MetricSeries

    series = MetricSeries.objects.select_for_update().filter(run_id=run_id, last_step__gte=step)
    ids = series.order_by("id").values_list("id", flat=True)
    deleted = sum(drop_from(series_id, step) for series_id in ids)
    MetricSeries.objects.filter(run_id=run_id, count=0).delete()
    left = MetricSeries.objects.filter(run_id=run_id).aggregate(last=Max("last_step"))
    return deleted, left["last"]


def _read_points(series_id: int, lo: int, hi: int) -> Points:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT series_id, step, value, {_epoch('recorded_at')} FROM {POINTS} "
            "WHERE series_id = %s AND step BETWEEN %s AND %s ORDER BY step",
            [series_id, lo, hi],
        )
        return _points(cursor.fetchall())


def _points(rows: list[tuple]) -> Points:
    """Rows of (series_id, step, value, time) as Points."""
    if not rows:
        return Points.empty()
    series, steps, values, times = zip(*rows, strict=True)
    return Points(
        np.array(series, dtype=np.int64),
        np.array(steps, dtype=np.int64),
        np.array([np.nan if v is None else v for v in values], dtype=np.float64),
        np.array(times, dtype=np.float64),
    )


# --- reads ----------------------------------------------------------------------------------


@dataclass
class SeriesInfo:
    series_id: int
    count: int
    first_step: int | None
    last_step: int | None
    nan_count: int


def _split(points: Points, series_ids: list[int]) -> dict[int, Points]:
    order = np.argsort(points.series, kind="stable")
    sorted_series = points.series[order]
    out = {}
    for sid in series_ids:
        lo, hi = np.searchsorted(sorted_series, [sid, sid + 1])
        out[sid] = points.take(order[lo:hi])
    return out


def _read_full(series_ids: list[int]) -> dict[int, Points]:
    if not series_ids:
        return {}
    marks, ids = _in(series_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT series_id, step, value, {_epoch('recorded_at')} FROM {POINTS} "
            f"WHERE series_id IN ({marks}) ORDER BY series_id, step",
            ids,
        )
        return _split(_points(cursor.fetchall()), series_ids)


def _read_ends(infos: list[SeriesInfo]) -> Points:
    """The first and last stored point of each series."""
    where = " OR ".join(["(series_id = %s AND step IN (%s, %s))"] * len(infos))
    params = [x for i in infos for x in (i.series_id, i.first_step, i.last_step)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT series_id, step, value, {_epoch('recorded_at')} FROM {POINTS} WHERE {where}",
            params,
        )
        return _points(cursor.fetchall())


def _read_downsampled(infos: list[SeriesInfo], max_points: int) -> dict[int, Points]:
    """Candidates from the finest small-enough rollup level, plus both ends, thinned by
    `runs.downsample` (a series too long for every level is read whole)."""
    candidates = [_read_ends(infos)]
    by_level: dict[int | None, list[SeriesInfo]] = {}
    for info in infos:
        level = pick_level(info.last_step - info.first_step + 1, max_points)
        by_level.setdefault(level, []).append(info)
    for level, group in by_level.items():
        ids = [i.series_id for i in group]
        if level is None:
            candidates += list(_read_full(ids).values())
            continue
        width = ROLLUP_WIDTHS[level]
        lo = min(i.first_step for i in group) // width
        hi = max(i.last_step for i in group) // width
        candidates.append(_read_rollups(ids, level, lo, hi).points())
    per_series = _split(Points.concat(candidates).unique_by_step(), [i.series_id for i in infos])
    out = {}
    for info in infos:
        points = per_series[info.series_id]
        keep = downsample_indices(
            points.steps, points.values, max_points, may_hold_nan=info.nan_count > 0
        )
        out[info.series_id] = points.take(keep)
    return out


def read_series(infos: list[SeriesInfo], max_points: int) -> dict[int, SeriesColumns]:
    """Each series, whole when it has at most `max_points` points, else downsampled."""
    small = [i.series_id for i in infos if i.count <= max_points]
    large = [i for i in infos if i.count > max_points]
    points = _read_full(small)
    if large:
        points.update(_read_downsampled(large, max_points))
    return {
        info.series_id: SeriesColumns(
            points[info.series_id].steps,
            points[info.series_id].values,
            points[info.series_id].times,
            total=info.count,
            downsampled=info.count > max_points,
        )
        for info in infos
    }
