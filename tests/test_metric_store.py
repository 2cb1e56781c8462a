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
