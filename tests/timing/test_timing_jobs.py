"""Timing jobs: validation, a real Celery worker on the `timing` queue, re-delivery, page."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import wait_for_status
from tests.support.timing_jobs import submit_timing_job
from timing import services as timing_services
from timing.models import TimingJob

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"language": "cobol"}, "language"),
        ({"modes": "cpu,wall"}, "modes"),
        ({"modes": "fast"}, "modes"),
        ({"repeats": 0}, "repeats"),
        ({"source": "  "}, "source"),
        ({"package_dir": "/nonexistent"}, "package_dir"),
        ({"kind": "other"}, "kind"),
    ],
)
def test_a_bad_job_is_refused_naming_the_field_and_nothing_is_stored(
    alice, sum_package, override, field
):
    with pytest.raises(ValueError, match=f"^{field}:"):
        submit_timing_job(alice, sum_package, **override)
    assert not TimingJob.objects.exists()


def test_a_real_worker_runs_a_job_from_the_timing_queue(celery_worker_process, alice, sum_package):
    job = submit_timing_job(alice, sum_package, repeats=2)

    wait_for_status(celery_worker_process, job, ("done", "failed"), 120, "the timing job to end")
    assert job.status == "done", job.error
    assert job.result["verdict"] == "OK"
    # ranked among the package's references: never faster than FAST on every test nor
    # slower than SLOW (with two repeats the timer's noise can move it past FAST's band
    # on a test where start-up dominates, so no tighter bound: test_ranking has those)
    assert 0.0 < job.result["speed_percentile"] <= 50.0
    assert job.progress_done == job.progress_total == 3 and job.attempts == 1
    assert job.queue_wait_s is not None and job.duration_s > 0
    assert job.worker.startswith("test-")


def test_a_re_delivered_job_is_not_run_twice(alice, sum_package, enqueued):
    job = submit_timing_job(alice, sum_package)
    assert timing_services.do_run_timing_job(str(job.id), "w1") == "done"
    first = TimingJob.objects.get(pk=job.pk)
    assert timing_services.do_run_timing_job(str(job.id), "w2") == "skipped"
    again = TimingJob.objects.get(pk=job.pk)
    assert again.attempts == 1 and again.worker == "w1" and again.result == first.result


def test_a_job_left_running_by_a_dead_worker_restarts_clean(alice, sum_package, enqueued):
    job = submit_timing_job(alice, sum_package)
    TimingJob.objects.filter(pk=job.pk).update(status="running", attempts=1, progress_done=2)
    assert timing_services.do_run_timing_job(str(job.id), "w2") == "done"
    job.refresh_from_db()
    assert job.attempts == 2 and job.worker == "w2" and job.result["verdict"] == "OK"


def test_a_failing_job_records_why(alice, sum_package, enqueued):
    job = submit_timing_job(alice, sum_package)
    (sum_package / "problem.yaml").write_text("validation: custom\n")  # broken after submit
    assert timing_services.do_run_timing_job(str(job.id), "w1") == "failed"
    job.refresh_from_db()
    assert job.status == "failed" and "validator" in job.error


def test_a_jitter_job_reports_each_modes_spread(alice, sum_package, enqueued):
    job = submit_timing_job(alice, sum_package, kind="jitter", modes="wall,cpu")
    assert timing_services.do_run_timing_job(str(job.id), "w1") == "done"
    job.refresh_from_db()
    modes = job.result["modes"]
    assert set(modes) == {"wall", "cpu"}
    for mode in modes.values():
        assert len(mode["percentiles"]) == 2 and mode["jitter"] is not None


def test_the_timing_page_shows_only_the_users_jobs_and_reports_form_errors(
    alice, bob, sum_package, enqueued
):
    submit_timing_job(alice, sum_package, repeats=2)
    browser = Client()
    browser.force_login(bob)
    assert browser.get("/timing/data.json").json()["jobs"] == []
    page = browser.post(
        "/timing/",
        {
            "package_dir": "/nope",
            "source": "x",
            "language": "python",
            "modes": "cpu",
            "kind": "measure",
            "repeats": "1",
            "remeasure": "2",
        },
    )
    assert page.status_code == 200 and "package_dir:" in page.content.decode()
    browser.force_login(alice)
    data = browser.get("/timing/data.json").json()
    assert len(data["jobs"]) == 1 and data["jobs"][0]["status"] == "queued"
    assert set(data["queues"]["depth"]) == {"default", "timing"}


def test_healthz_reports_queue_depth(alice):
    client = Client()
    client.force_login(alice)  # queue depths are details for signed-in users
    assert "timing" in client.get("/healthz").json()["queues"]["depth"]
