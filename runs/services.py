"""The only place that changes runs and metrics.

`check_*` validates, `do_*` changes state; `notify_*` (runs/broadcasts.py) broadcasts after
commit. Reads of stored metrics for charts and the run list: runs/reads.py.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from foundation.tenancy import Team, team_scoped
from runs import metric_store
from runs.broadcasts import notify_metrics, notify_run_status
from runs.downsample import downsample_indices
from runs.ingest import encode_value, parse_batch
from runs.models import MetricSeries, Run, RunStatus

# A live message carries at most this many points per key; a larger batch is downsampled
# (extremes kept) so that a 5,000-point batch does not flood every open page.
LIVE_POINTS_PER_KEY = 500

# --- who sees what --------------------------------------------------------------------------


def visible_runs(user) -> QuerySet[Run]:
    """Runs of the user's teams; every run for staff; none for an anonymous user."""
    return team_scoped(Run.objects.select_related("owner", "team"), user)


def check_can_see_run(user, run_id: int) -> Run:
    """The run, if the user may see it; Run.DoesNotExist otherwise (a 404, never a 403)."""
    return visible_runs(user).get(pk=run_id)


def search_runs(runs: QuerySet[Run], *, text: str = "", status: str = "", team: str = ""):
    if text:
        runs = runs.filter(
            Q(name__icontains=text)
            | Q(model_name__icontains=text)
            | Q(notes__icontains=text)
            | Q(tags__icontains=text)
            | Q(owner__username__icontains=text)
        )
    if status:
        runs = runs.filter(status=status)
    if team:
        runs = runs.filter(team__name=team)
    return runs


# --- runs -----------------------------------------------------------------------------------


def do_create_run(
    *,
    owner,
    team: Team,
    name: str,
    config: object = "",
    model_name: str = "",
    tags: list[str] | None = None,
    notes: str = "",
    status: str = RunStatus.QUEUED,
    reward_config=None,
) -> Run:
    """Create a run. A config given as an object is stored as its JSON text, keys in order."""
    config_text = config if isinstance(config, str) else json.dumps(config, indent=2)
    now = timezone.now()
    return Run.objects.create(
        owner=owner,
        team=team,
        name=name,
        config=config_text,
        model_name=model_name,
        tags=list(tags or []),
        notes=notes,
        status=status,
        reward_config=reward_config,
        started_at=now if status == RunStatus.RUNNING else None,
        finished_at=now if status in _ENDED else None,
    )


_ENDED = {RunStatus.FINISHED, RunStatus.FAILED, RunStatus.STOPPED}


EDITABLE_FIELDS = ("name", "model_name", "notes", "tags")


def do_update_run(run: Run, *, status: str | None = None, **changes) -> Run:
    """Change a run's descriptive fields and, through `do_set_run_status`, its status."""
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"{', '.join(sorted(unknown))}: cannot be changed")
    with transaction.atomic():
        for name, value in changes.items():
            setattr(run, name, value)
        if changes:
            run.save(update_fields=[*changes, "updated_at"])
        if status and status != run.status:
            do_set_run_status(run, status)
    return run


def do_set_run_status(run: Run, status: str) -> Run:
    now = timezone.now()
    run.status = status
    if status == RunStatus.RUNNING and run.started_at is None:
        run.started_at = now
    if status in _ENDED:
        run.finished_at = now
    run.save(update_fields=["status", "started_at", "finished_at", "updated_at"])
    transaction.on_commit(lambda: notify_run_status(run.pk, status))
    return run


# --- metrics --------------------------------------------------------------------------------


@dataclass
class IngestResult:
    points: int
    inserted: int
    keys: int
    last_step: int


def do_ingest_metrics(run_id: int, payload: object) -> IngestResult:
    """Validate a batch and store it in one transaction, then broadcast it.

    1. Parse the whole batch (BatchError on the first bad point; nothing written).
    2. Create the run's missing series.
    3. Upsert every point (same run, step and key: the last value wins).
    4. Fold the batch into the series summaries, then the run's last step, in series-id
       order. These row locks are taken last, so concurrent batches for one run wait for
       each other only through the commit, not through the upsert.
    5. After commit, send the points, the run's last step and (on its first points) its
       new status to the run's live group.
    Raises Run.DoesNotExist for an unknown run.
    """
    batch = parse_batch(payload, max_points=settings.METRICS_MAX_BATCH_POINTS)
    recorded_at = timezone.now()
    by_key = batch.by_key()
    with transaction.atomic():
        status = Run.objects.filter(pk=run_id).values_list("status", flat=True).first()
        if status is None:
            raise Run.DoesNotExist(f"run {run_id}")
        series = _ensure_series(run_id, list(by_key))
        writes = sorted(
            (
                metric_store.SeriesWrite(series[key][0], steps, values, series[key][1])
                for key, (steps, values) in by_key.items()
            ),
            key=lambda write: write.series_id,
        )
        inserted = metric_store.upsert_points(writes, recorded_at)
        metric_store.update_rollups(writes, inserted, recorded_at)
        metric_store.update_series_summaries(writes, inserted)
        queued = Q(status=RunStatus.QUEUED)
        Run.objects.filter(pk=run_id).update(
            last_step=Greatest(Coalesce("last_step", Value(-1)), Value(batch.max_step)),
            last_metric_at=recorded_at,
            updated_at=recorded_at,
            status=Case(When(queued, then=Value(RunStatus.RUNNING)), default=F("status")),
            started_at=Case(When(queued, then=Value(recorded_at)), default=F("started_at")),
        )
        last_step = Run.objects.values_list("last_step", flat=True).get(pk=run_id)
        message = live_message(by_key, recorded_at.timestamp())
        message["last_step"] = last_step
        if status == RunStatus.QUEUED:  # the first points start the run (the update above)
            message["status"] = RunStatus.RUNNING
        transaction.on_commit(lambda: notify_metrics(run_id, message))
    return IngestResult(
        points=len(batch),
        inserted=sum(inserted.values()),
        keys=len(by_key),
        last_step=last_step,
    )


def _ensure_series(run_id: int, keys: list[str]) -> dict[str, tuple[int, int | None]]:
    """{key: (series id, last stored step)}, creating the series that do not exist yet."""
    MetricSeries.objects.bulk_create(
        [MetricSeries(run_id=run_id, key=key) for key in keys], ignore_conflicts=True
    )
    rows = MetricSeries.objects.filter(run_id=run_id, key__in=keys)
    return {key: (sid, last) for key, sid, last in rows.values_list("key", "id", "last_step")}


def do_drop_metrics_from(run_id: int, step: int) -> int:
    """Delete every metric point of a run at `step` and after (its series' summaries and
    rollups follow; a series left empty goes), and set the run's last step to what is left;
    the points deleted. The run's open pages are told to read their series again."""
    with transaction.atomic():
        deleted, last = metric_store.drop_run_from(run_id, step)
        Run.objects.filter(pk=run_id).update(last_step=last)
        if deleted:
            message = {"type": "reload", "last_step": last}
            transaction.on_commit(lambda: notify_metrics(run_id, message))
    return deleted


def do_rebuild_rollups(run: Run) -> int:
    """Recompute the rollups of every series of a run from its stored points (a repair, or
    after points were written outside `do_ingest_metrics`). Returns the series rebuilt."""
    series = list(MetricSeries.objects.filter(run=run).exclude(first_step=None))
    for one in series:
        with transaction.atomic():
            metric_store.rebuild_rollups(one.id, one.first_step, one.last_step)
    return len(series)


def live_message(by_key: dict[str, tuple[list[int], list[float]]], recorded_at: float) -> dict:
    """The websocket payload for a batch (`ParsedBatch.by_key()`):
    {key: {steps, values, time}}, one receipt time for the whole batch."""
    series = {}
    for key, (steps, values) in by_key.items():
        if len(steps) > LIVE_POINTS_PER_KEY:
            keep = downsample_indices(steps, values, LIVE_POINTS_PER_KEY)
            steps = [steps[i] for i in keep]
            values = [values[i] for i in keep]
        if not all(map(math.isfinite, values)):
            values = [encode_value(v) for v in values]
        series[key] = {"steps": steps, "values": values, "time": round(recorded_at, 3)}
    return {"type": "metrics", "series": series}
