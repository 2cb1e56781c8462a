"""/healthz: anyone learns up or down; a signed-in user learns which dependency, with the
details (workers, queues, the sandbox, error texts), passwords masked."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from django.templatetags.static import static
from django.test import Client
from django.utils import timezone

from foundation.liveness import WorkerHeartbeat
from tests.conftest import token_client

pytestmark = pytest.mark.django_db

DETAILS = {"database", "broker", "channel_layer", "workers", "queues", "sandbox"}


def unreachable_broker(monkeypatch, url: str = "redis://127.0.0.1:1/0") -> None:
    monkeypatch.setattr(settings, "CELERY_BROKER_URL", url)
    monkeypatch.setattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})


@pytest.fixture
def signed_in(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def heartbeat():
    WorkerHeartbeat.objects.create(
        hostname="timing-7@rack-3", queues="default,timing", last_seen=timezone.now()
    )


def hostnames(body: dict) -> list[str]:
    """The workers /healthz lists (beside the test's heartbeat, the session's real Celery
    worker's, once it has started)."""
    return [worker["hostname"] for worker in body["workers"]["seen"]]


def test_an_anonymous_caller_learns_only_that_it_is_up(heartbeat):
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert b"rack-3" not in response.content


def test_a_browser_asking_for_favicon_ico_gets_the_sites_icon():
    """What a browser asks for on /healthz (a JSON page names no icon) is the site's icon,
    not a 404 in its console."""
    response = Client().get("/favicon.ico")
    assert response.status_code == 301 and response["Location"] == static("favicon.svg")
    icon = Client().get(response["Location"])
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    assert Client().post("/favicon.ico").status_code == 405


def test_an_anonymous_caller_learns_it_is_down_but_not_why(monkeypatch):
    unreachable_broker(monkeypatch)
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "down"}


def test_a_signed_in_user_sees_each_dependency_and_the_workers(signed_in, heartbeat):
    response = signed_in.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert DETAILS <= set(body) and body["status"] == "ok"
    assert body["database"] == {
        "ok": True,
        "vendor": settings.DATABASES["default"]["ENGINE"]
        .split(".")[-1]
        .replace("sqlite3", "sqlite"),
    }
    assert body["broker"]["ok"] is True
    assert body["channel_layer"]["ok"] is True
    assert "timing-7@rack-3" in hostnames(body)
    assert set(body["queues"]["depth"]) == {"default", "timing"}
    assert body["sandbox"]["isolation"] in ("cgroup-v2", "cgroup-v1", "uid-pool")


def test_an_api_token_sees_the_details_too(alice, heartbeat):
    body = token_client(alice).get("/healthz").json()
    assert DETAILS <= set(body)
    assert "timing-7@rack-3" in hostnames(body)


def test_a_signed_in_user_sees_which_dependency_is_down_and_why(signed_in, monkeypatch):
    unreachable_broker(monkeypatch)
    response = signed_in.get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"]["ok"] is False
    assert "127.0.0.1:1" in response.json()["broker"]["error"]


def test_an_error_text_quoting_the_broker_url_has_its_password_masked(signed_in, monkeypatch):
    url = "amqp://codeopt:broker-secret-9@mq.internal:5672//"
    unreachable_broker(monkeypatch, url)

    def quoting_driver(timeout_s: float) -> str:  # some drivers put the URL in their error
        raise ConnectionError(f"cannot reach {url} (nor 'broker-secret-9' alone)")

    monkeypatch.setattr("workers.process.health.reach_broker", quoting_driver)
    response = signed_in.get("/healthz")
    error = response.json()["broker"]["error"]
    assert response.status_code == 503
    assert "broker-secret-9" not in response.content.decode()
    assert "amqp://codeopt:***@mq.internal:5672//" in error


def test_the_queues_count_each_timing_host_s_scoring_groups_timing_jobs_and_builds(
    signed_in, alice
):
    from datetime import timedelta

    from problems.models import DatasetBuild
    from scoring.models import ScoringJob, ScoringPart
    from timing.models import TimingJob

    now = timezone.now()
    ran = {"started_at": now - timedelta(seconds=3), "finished_at": now, "status": "done"}
    job = ScoringJob.objects.create(request={"groups": []})
    for index, worker in enumerate(["timing-a@c#101", "timing-a@c#102", "timing-b@c#7"]):
        ScoringPart.objects.create(job=job, index=index, worker=worker, **ran)
    ScoringPart.objects.create(job=job, index=3)  # queued
    ScoringPart.objects.create(  # an hour and more ago: not counted
        job=job,
        index=4,
        worker="timing-c@c#1",
        started_at=now - timedelta(hours=2),
        finished_at=now - timedelta(minutes=61),
        status="done",
    )
    TimingJob.objects.create(owner=alice, worker="timing-b@c", result={"executions": 12}, **ran)
    DatasetBuild.objects.create(worker="timing-a@c", **ran)
    DatasetBuild.objects.create(worker="timing-a@c", started_at=now)  # running: not counted

    queues = signed_in.get("/healthz").json()["queues"]

    assert queues["scoring_groups_waiting"] == 1
    assert queues["timing_workers"] == [
        {
            "worker": "timing-a@c",
            "jobs": 0,
            "scoring_groups": 2,
            "builds": 1,
            "busy_s": 9.0,
            "executions_per_s": None,
        },
        {
            "worker": "timing-b@c",
            "jobs": 1,
            "scoring_groups": 1,
            "builds": 0,
            "busy_s": 6.0,
            "executions_per_s": 4.0,
        },
    ]


def test_queue_depths_are_read_through_the_transport_of_the_broker_url_in_use(monkeypatch):
    """The queue check takes the transport the URL names (foundation.broker.transport_for),
    as the workers do: a Redis broker's queue is read from Redis even in a process whose
    settings were made for the embedded broker (here: pass 1's)."""
    from kombu import Connection

    from workers.process import health

    url, queue = "redis://127.0.0.1:6379/0", f"healthz-depth-{uuid.uuid4().hex}"
    monkeypatch.setattr(settings, "CELERY_BROKER_URL", url)
    monkeypatch.setattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    monkeypatch.setattr(health, "QUEUES", (queue,))
    with Connection(url) as conn:
        waiting = conn.SimpleQueue(queue)
        try:
            for n in range(3):
                waiting.put({"n": n})
            assert health.check_queues()["depth"] == {queue: 3}
        finally:
            waiting.clear()
            waiting.close()
