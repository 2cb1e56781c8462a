"""One trainer per training run: a lease on the TrainingRun row, beaten from a thread."""

from __future__ import annotations

import threading
import uuid

from django.db import close_old_connections, transaction
from django.db.models import F
from django.utils import timezone

from training.models import TrainingRun

# A training run has one trainer at a time. Each delivery of the task takes a lease on the
# TrainingRun row and beats it every LEASE_BEAT_S from a thread; another delivery (a broker
# re-delivering a message whose worker is only slow, two workers on the same queue) waits
# while the beat is younger than LEASE_STALE_S, and takes over once it is older: the first
# trainer died. A trainer that finds its lease taken stops at once, writing nothing more.
LEASE_BEAT_S = 10.0
LEASE_STALE_S = 60.0


class RunBusy(Exception):
    """Another live delivery trains this run; retry after LEASE_STALE_S."""


class LeaseLost(Exception):
    """This delivery's lease was taken over: its trainer must stop writing."""


def claim_training(training_pk: int, worker: str) -> str:
    """Take the run's lease for this delivery; its token. RunBusy when a live one holds it."""
    token = f"{worker or 'local'}:{uuid.uuid4().hex[:12]}"
    now = timezone.now()
    with transaction.atomic():
        row = TrainingRun.objects.select_for_update().get(pk=training_pk)
        fresh = row.heartbeat_at and (now - row.heartbeat_at).total_seconds() < LEASE_STALE_S
        if row.lease and fresh:
            raise RunBusy(
                f"run {row.run_id} is trained by {row.lease} (heartbeat "
                f"{(now - row.heartbeat_at).total_seconds():.0f} s ago)"
            )
        TrainingRun.objects.filter(pk=training_pk).update(
            lease=token,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            worker=worker,
            stage="loading problems",
        )
    return token


class Lease:
    """Beats the lease from a thread while the trainer works; `lost` once another took it."""

    def __init__(self, training_pk: int, token: str):
        self.training_pk = training_pk
        self.token = token
        self.lost = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True, name="training-lease")

    def _beat(self) -> None:
        try:
            while not self._done.wait(LEASE_BEAT_S):
                held = TrainingRun.objects.filter(pk=self.training_pk, lease=self.token).update(
                    heartbeat_at=timezone.now()
                )
                if not held:
                    self.lost.set()
                    return
        finally:
            close_old_connections()

    def __enter__(self) -> Lease:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        # ended here (finished, stopped, failed): the next delivery need not wait
        TrainingRun.objects.filter(pk=self.training_pk, lease=self.token).update(
            lease="", heartbeat_at=None
        )
