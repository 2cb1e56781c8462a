"""A real Celery worker process takes a task from the broker and does the work."""

from __future__ import annotations

import pytest
from django.test import Client

from foundation.liveness import WorkerHeartbeat
from runs.models import MetricSeries, Run
from tests.conftest import wait_until
from workers.tasks import replay_synthetic_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_worker_replays_a_run_through_the_api(celery_worker_process, asgi_server, alice_run):
    replay_synthetic_run.delay(alice_run.pk, asgi_server, total_steps=6, interval=0.05)

    def finished():
        if not celery_worker_process.alive():
            raise AssertionError("worker died:\n" + celery_worker_process.output())
        return Run.objects.get(pk=alice_run.pk).status == "finished"

    wait_until(finished, 60, "the replay to finish")
    series = MetricSeries.objects.filter(run=alice_run)
    assert series.count() == 12
    assert {s.count for s in series} == {6}
    assert Run.objects.get(pk=alice_run.pk).last_step == 5


def test_the_worker_heartbeat_shows_in_healthz(celery_worker_process, alice):
    wait_until(lambda: WorkerHeartbeat.objects.exists(), 30, "a worker heartbeat")
    client = Client()
    client.force_login(alice)  # the workers are details for signed-in users
    body = client.get("/healthz").json()
    assert body["workers"]["ok"] is True
    assert "default" in body["workers"]["seen"][0]["queues"]


def test_a_job_sent_with_a_countdown_starts_no_earlier_on_the_real_broker(celery_worker_process):
    """What a host that refuses a scoring job does (scoring.coordinator.refuse): the job
    is sent again with a countdown; the worker holds it, then runs it."""
    from django.utils import timezone

    from foundation import sending
    from rewards.models import Simulation

    simulation = Simulation.objects.create(configs=[], noise_cvs=[0.0])  # fails: no problems
    sent_at = timezone.now()
    sending.send("rewards.run_simulation", [simulation.pk], None, countdown=3)

    def ended():
        if not celery_worker_process.alive():
            raise AssertionError("worker died:\n" + celery_worker_process.output())
        simulation.refresh_from_db()
        return simulation.status in ("done", "failed")

    wait_until(ended, 60, "the simulation sent with a countdown to run")
    assert (simulation.started_at - sent_at).total_seconds() >= 3 - 0.05  # clocks: one host
