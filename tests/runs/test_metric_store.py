"""The SQL layer's upsert: the append fast path falls back when a point already exists."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.utils import timezone

from runs import metric_store, services
from runs.models import MetricPoint, MetricSeries

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_stale_last_step_falls_back_to_the_conflict_path(alice_run):
    services.do_ingest_metrics(
        alice_run.pk, {"points": [{"step": s, "key": "k", "value": 0.0} for s in range(5)]}
    )
    series = MetricSeries.objects.get(run=alice_run, key="k")
    # Claims to append after step 2, but steps 3 and 4 are stored (another writer's batch).
    write = metric_store.SeriesWrite(series.id, [3, 4, 5], [3.0, 4.0, 5.0], last_stored_step=2)
    assert write.appends_only
    with transaction.atomic():
        inserted = metric_store.upsert_points([write], timezone.now())
    assert inserted == {series.id: 1}
    values = dict(MetricPoint.objects.filter(series=series).values_list("step", "value"))
    assert values == {0: 0.0, 1: 0.0, 2: 0.0, 3: 3.0, 4: 4.0, 5: 5.0}


def _state(run) -> dict:
    """Everything stored of a run's metrics but the receipt times and the NaN count (an
    upper bound after overwrites, runs.models; checked apart): per series its summary,
    points and rollups."""
    from runs.models import MetricRollup

    out = {}
    for series in MetricSeries.objects.filter(run=run).order_by("key"):
        points = MetricPoint.objects.filter(series=series).order_by("step")
        rollups = MetricRollup.objects.filter(series=series).order_by("level", "bucket")
        out[series.key] = (
            (series.count, series.first_step, series.last_step),
            series.last_value,
            list(points.values_list("step", "value")),
            list(
                rollups.values_list(
                    "level", "bucket", "min_step", "min_value", "max_step", "max_value", "nan_step"
                )
            ),
        )
    return out


@pytest.mark.parametrize("seed", range(6))
def test_dropping_from_a_step_leaves_what_ingesting_only_the_earlier_points_stores(alice, seed):
    """A resumed run drops what its killed attempt logged from the checkpoint on: the
    series, summaries and rollups left equal a run that was only ever sent the points
    before that step (the reference), on random series with NaNs, gaps, overwrites and
    keys that start past the cut."""
    import random

    from foundation.tenancy import Team
    from runs.models import Run

    rng = random.Random(seed)
    team = Team.objects.get(name="red")
    dropped, reference = (
        services.do_create_run(owner=alice, team=team, name=name) for name in ("dropped", "ref")
    )
    cut = rng.randrange(1, 3000)
    batches = []
    for _ in range(rng.randrange(2, 6)):
        points = []
        for key in ("loss", "reward", "late", "sparse")[: rng.randrange(1, 5)]:
            start = cut + rng.randrange(0, 50) if key == "late" else rng.randrange(0, cut)
            for step in range(start, start + rng.randrange(1, 3000), rng.choice((1, 1, 7))):
                value = float("nan") if rng.random() < 0.05 else rng.uniform(-5, 5)
                points.append({"step": step, "key": key, "value": value})
        batches.append(points)
    for points in batches:
        services.do_ingest_metrics(dropped.pk, {"points": points})
        kept = [p for p in points if p["step"] < cut]
        if kept:
            services.do_ingest_metrics(reference.pk, {"points": kept})

    deleted = services.do_drop_metrics_from(dropped.pk, cut)

    assert deleted == sum(
        1 for p in {(p["key"], p["step"]) for b in batches for p in b} if p[1] >= cut
    )
    assert _state(dropped) == _state(reference)
    for series in MetricSeries.objects.filter(run=dropped):  # exact once dropped
        nans = MetricPoint.objects.filter(series=series, value=None).count()
        assert series.nan_count == nans, series.key
    assert "late" not in _state(dropped)
    last = Run.objects.values_list("last_step", flat=True)
    assert last.get(pk=dropped.pk) == last.get(pk=reference.pk)
