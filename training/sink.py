"""The trainer's reports into the database: metrics through the ingest service (the path every
trainer's metrics take), samples as rows, the stop flag, and the stage with its progress."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from foundation import inputs
from foundation.progress import RecentRate, remaining_s
from runs.broadcasts import notify_run_progress
from runs.services import do_ingest_metrics
from training.lease import LeaseLost
from training.models import RolloutSample, TrainingRun


def notify_training_progress(training_pk: int) -> None:
    """Once the current transaction commits: the run's optimizer steps done and stage, as
    stored, to the run's open pages (the header of the run page)."""

    def send() -> None:
        rows = TrainingRun.objects.filter(pk=training_pk).values("run_id", "version", "stage")
        for row in rows:  # none if the run was deleted meanwhile
            notify_run_progress(row["run_id"], step=row["version"], stage=row["stage"])

    transaction.on_commit(send)


class DatabaseSink:
    """The trainer's reports: metrics through the ingest service, samples as rows (a step
    re-run after a resume replaces its rows), the stop flag from the TrainingRun row."""

    def __init__(self, training, slugs_to_ids: dict[str, int], lease: str = ""):
        self.training = training
        self.problem_ids = slugs_to_ids
        self.lease = lease  # the delivery's lease token; "" writes unguarded

    def _check_lease(self) -> None:
        if (
            self.lease
            and not TrainingRun.objects.filter(pk=self.training.pk, lease=self.lease).exists()
        ):
            raise LeaseLost(f"run {self.training.run_id}: another delivery took the lease")

    def log(self, step: int, metrics: dict[str, float]) -> None:
        self._check_lease()

        points = [
            {"step": step, "key": key, "value": None if value != value else float(value)}
            for key, value in sorted(metrics.items())
        ]
        do_ingest_metrics(self.training.run_id, {"points": points})

    def samples(self, step: int, rows) -> None:
        self._check_lease()
        with transaction.atomic():
            RolloutSample.objects.filter(training=self.training, step=step).delete()
            RolloutSample.objects.bulk_create(
                RolloutSample(
                    training=self.training,
                    step=step,
                    problem_id=self.problem_ids[row.problem],
                    group=row.group,
                    index=row.index,
                    completion=inputs.storable(row.text),
                    program=inputs.storable(row.program or ""),
                    reward=row.reward,
                    verdict=row.verdict,
                    correct=row.correct,
                    speed_percentile=row.speed_percentile,
                    policy_version=row.policy_version,
                    tokens=row.tokens,
                    truncated=row.truncated,
                )
                for row in rows
            )
            TrainingRun.objects.filter(pk=self.training.pk).update(version=step)
            notify_training_progress(self.training.pk)

    def should_stop(self) -> bool:
        return TrainingRun.objects.filter(pk=self.training.pk, stop_requested=True).exists()


class StageProgress:
    """The run's stage on its TrainingRun row, counted (problems loaded, warm-start steps,
    optimizer steps) with the stage's estimated end at its recent rate, for the run page.

    A stage's rate is its pace over the last minute (foundation.progress.RecentRate); in its
    first seconds, the pace since it began (a resumed run's training starts at its
    checkpoint's step); `deadline_s`, seconds from the stage's start (the time budget), caps
    the estimate. Counts are written at most every WRITE_EVERY_S (a warm-start step can take
    milliseconds) and always at a stage's start and last count; with `lease`, only while this
    delivery holds the run. `on_progress(done, total, stage)` hears every count (the `train`
    command prints it)."""

    WRITE_EVERY_S = 1.0

    def __init__(
        self,
        training_pk: int,
        lease: str = "",
        on_progress: Callable[[int, int, str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.training_pk = training_pk
        self.lease = lease
        self.on_progress = on_progress
        self.clock = clock
        self.name, self.total, self.done = "", 0, 0
        self.remaining: float | None = None
        self._start = (0.0, 0)  # (clock, done) when the stage began
        self._recent = RecentRate()  # the stage's pace over its last minute
        self._deadline: float | None = None
        self._written = 0.0

    def stage(self, name: str, total: int = 0, done: int = 0, deadline_s: float | None = None):
        """A new stage, `done` of `total` counted already (0 total: nothing to count)."""
        now = self.clock()
        self.name, self.total, self.done, self.remaining = name, total, done, None
        self._start = (now, done)
        self._recent = RecentRate()
        self._recent.add(now, done)
        self._deadline = None if deadline_s is None else now + deadline_s
        self._write(now)

    def advance(self, done: int) -> None:
        """`done` of the stage's total counted now."""
        now = self.clock()
        self.done = done
        started, done_before = self._start
        self._recent.add(now, done)
        # the pace of the last minute where there is one: a rate since the stage began keeps
        # the pace of before a neighbour started (foundation.progress.RecentRate)
        self.remaining = self._recent.remaining_s(self.total)
        if self.remaining is None:
            counted, total = done - done_before, self.total - done_before
            self.remaining = remaining_s(counted, total, now - started)
        if self._deadline is not None:
            left = max(0.0, self._deadline - now)
            self.remaining = left if self.remaining is None else min(self.remaining, left)
        if now - self._written >= self.WRITE_EVERY_S or done >= self.total:
            self._write(now)
        elif self.on_progress is not None:
            self.on_progress(self.done, self.total, self.name)

    def share(self, now: float) -> float | None:
        """The share of the stage done, for the page's bar: `done / total` while the
        estimate is the rate so far; where the deadline comes first, what was done before
        this stage began plus the rest in proportion to the time spent of the time to the
        deadline (a time-budgeted run's bar follows its budget, not its step cap). The two
        agree without a deadline: at the rate r = (done - before) / elapsed, elapsed /
        (elapsed + remaining) is (done - before) / (total - before). None without a total."""
        if not self.total:
            return None
        counted = min(1.0, self.done / self.total)
        started, before = self._start
        elapsed = now - started
        if self.remaining is None or elapsed <= 0:
            return counted
        base = min(1.0, before / self.total)
        return min(1.0, base + (1 - base) * elapsed / (elapsed + self.remaining))

    def _write(self, now: float) -> None:
        self._written = now
        rows = TrainingRun.objects.filter(pk=self.training_pk)
        if self.lease:
            rows = rows.filter(lease=self.lease)
        rows.update(
            stage=self.name[:200],
            progress_done=self.done,
            progress_total=self.total,
            progress_share=self.share(now),
            stage_ends_at=(
                None
                if self.remaining is None
                else timezone.now() + timedelta(seconds=self.remaining)
            ),
        )
        notify_training_progress(self.training_pk)  # the run page's header, live
        if self.on_progress is not None:
            self.on_progress(self.done, self.total, self.name)
