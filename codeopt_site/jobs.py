"""What every background job row shares: a failure is recorded on the row (status "failed",
the error, when) before the exception goes on to fail the task."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.utils import timezone


@contextmanager
def failure_recorded(rows) -> Iterator[None]:
    """Run the job's work inside; an exception marks `rows` (a queryset of the job's row,
    a model with `status`, `error` and `finished_at`) failed, then propagates."""
    try:
        yield
    except Exception as exc:
        rows.update(
            status="failed", error=f"{type(exc).__name__}: {exc}", finished_at=timezone.now()
        )
        raise
