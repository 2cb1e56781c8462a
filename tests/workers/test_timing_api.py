"""The Timing page's jobs through the API (issue 35, item 1): /api/timing-jobs/ lists the rows
the page's table polls (timing/data.json), one is read by its id, and its retry is the page's
Retry button, with the same checks; another's job is 404."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from foundation.liveness import WorkerHeartbeat
from tests.conftest import token_client
from timing.models import TimingJob

pytestmark = pytest.mark.django_db(transaction=True)  # jobs are sent once committed


def job(owner, **fields) -> TimingJob:
    return TimingJob.objects.create(
        owner=owner,
        package_dir="/packages/sum/",
        source="print(sum(map(int, input().split())))",
        language="python",
        **fields,
    )


@pytest.fixture
def jobs(alice, bob) -> dict[str, TimingJob]:
    """One job of each state the page shows (a running one whose worker stopped beating is
    "lost"), alice's, and one of bob's."""
    now = timezone.now()
    WorkerHeartbeat.objects.create(
        hostname="dead@h",
        queues="timing",
        last_seen=now - timedelta(minutes=10),
        booted_at=now - timedelta(hours=1),
    )
    made = {
        "done": job(
            alice,
            status="done",
            started_at=now - timedelta(seconds=30),
            finished_at=now - timedelta(seconds=20),
            result={
                "verdict": "OK",
                "speed_percentile": 42.5,
                "executions": 12,
                "tests": [{"cpu_cv": 0.03}, {"cpu_cv": None}],
                "modes": {"cpu": {"jitter": 1.5, "cpu_cvs": [0.02]}},
            },
        ),
        "sandbox": job(
            alice,
            status="failed",
            error="SandboxError: no verdict for program: exec: EAGAIN",
            finished_at=now,
        ),
        "lost": job(
            alice, status="running", worker="dead@h", started_at=now - timedelta(minutes=2)
        ),
        "queued": job(alice),
        "bobs": job(bob),
    }
    # created in that order within a millisecond or two: the newest first, distinctly
    for age, row in enumerate(reversed(made.values())):
        TimingJob.objects.filter(pk=row.pk).update(created_at=now - timedelta(minutes=age))
    return made


def page_rows(user) -> list[dict]:
    browser = Client()
    browser.force_login(user)
    return browser.get("/timing/data.json").json()["jobs"]


def test_the_list_and_each_job_are_the_rows_the_timing_page_shows(alice, bob, jobs):
    api = token_client(alice)
    listed = api.get("/api/timing-jobs/").json()
    rows = page_rows(alice)
    assert listed["results"] == rows and listed["count"] == 4
    assert [r["id"] for r in rows] == [
        str(jobs[k].pk) for k in ("queued", "lost", "sandbox", "done")
    ]
    by_state = {r["id"]: r for r in rows}
    done, lost = by_state[str(jobs["done"].pk)], by_state[str(jobs["lost"].pk)]
    assert (done["queue_wait_s"], done["duration_s"]) == (210.0, 10.0)  # made 4 min ago
    assert done["cpu_cvs"] == [0.03, 0.02] and done["jitter"] == {"cpu": 1.5}
    assert lost["status"] == "lost" and "dead@h stopped beating" in lost["error"]
    assert by_state[str(jobs["queued"].pk)]["queue_wait_s"] is None  # not taken yet
    assert api.get("/api/timing-jobs/?limit=1&offset=1").json()["results"] == rows[1:2]

    detail = api.get(f"/api/timing-jobs/{jobs['done'].pk}/")
    assert detail.status_code == 200 and detail.json() == done
    assert [r["id"] for r in token_client(bob).get("/api/timing-jobs/").json()["results"]] == [
        str(jobs["bobs"].pk)
    ]
    assert token_client(bob).get(f"/api/timing-jobs/{jobs['done'].pk}/").status_code == 404
    assert api.get("/api/timing-jobs/not-a-uuid/").status_code == 404
    for path in ("", f"{jobs['done'].pk}/", f"{jobs['done'].pk}/retry/"):  # described, no 500
        assert api.options(f"/api/timing-jobs/{path}").status_code == 200, path


def test_a_retry_is_the_pages_button_with_its_checks(alice, bob, jobs, enqueued):
    api = token_client(alice)
    failed = jobs["sandbox"]
    assert token_client(bob).post(f"/api/timing-jobs/{failed.pk}/retry/").status_code == 404
    refused = api.post(f"/api/timing-jobs/{jobs['done'].pk}/retry/")
    assert refused.status_code == 409
    assert (
        refused.json()["detail"]
        == f"timing job {jobs['done'].pk} did not fail in the sandbox (done)"
    )
    assert enqueued == []

    retried = api.post(f"/api/timing-jobs/{failed.pk}/retry/")
    assert retried.status_code == 202
    assert (retried.json()["status"], retried.json()["error"], retried.json()["retry_url"]) == (
        "queued",
        "",
        None,
    )
    assert [(task, args) for task, args, _ in enqueued] == [
        ("timing.run_timing_job", [str(failed.pk)])
    ]
    assert retried.json() == next(r for r in page_rows(alice) if r["id"] == str(failed.pk))
    # a second press while it is queued again queues nothing
    assert api.post(f"/api/timing-jobs/{failed.pk}/retry/").status_code == 409
    assert len(enqueued) == 1
