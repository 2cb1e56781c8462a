"""A job whose runs still fail in the sandbox after the engine's retries is failed as
retryable, never given a verdict or a reward: retried from the Timing page (a button) or the
API, counted on the job and in /healthz. The sandbox failure is a real one: the one slot uid
of the pool held over its process limit by sleeping processes."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from evaluations.models import Evaluation
from execution.isolation import SandboxError
from execution.retries import SANDBOX_ATTEMPTS
from foundation.jobs import failed_in_sandbox
from foundation.tenancy import Team
from problems.models import Problem
from scoring import coordinator
from scoring.models import ScoringJob
from tests.conftest import token_client
from tests.sandbox_support import processes_of, use_one_slot
from tests.support.timing_jobs import submit_timing_job
from tests.training.test_training_runs import start_run
from timing import services as timing_services
from timing.models import TimingJob
from workers import retry

pytestmark = pytest.mark.django_db(transaction=True)
PROCESSES = 64  # Limits().processes: the slot uid's RLIMIT_NPROC in every run


@pytest.fixture
def slot_uid(monkeypatch, tmp_path) -> int:
    # every run here fails SANDBOX_ATTEMPTS times: the retries, counted, without their waits
    # (a failure that clears during the backoff: tests/execution/test_sandbox_errors.py)
    monkeypatch.setattr("execution.retries.SANDBOX_BACKOFF_S", 0.01)
    return use_one_slot(monkeypatch, tmp_path / "slots")


def test_a_timing_job_failing_in_the_sandbox_fails_retryable_and_a_retry_measures_it(
    alice, sum_package, slot_uid, enqueued
):
    job = submit_timing_job(alice, sum_package)
    with processes_of(slot_uid, PROCESSES + 1):
        assert timing_services.do_run_timing_job(str(job.id), "w1") == "failed"
    job.refresh_from_db()
    assert failed_in_sandbox(job) and "no verdict for" in job.error
    assert job.result["verdict"] == "SANDBOX_ERROR"  # stored for inspection, no percentile
    assert job.result["sandbox"]["errors"] >= SANDBOX_ATTEMPTS
    assert "program" in job.result["sandbox"]["unmeasured"]

    browser = Client()
    browser.force_login(alice)
    data = browser.get("/timing/data.json").json()
    (row,) = data["jobs"]
    assert row["retry_url"] == f"/timing/retry/timing/{job.id}/"
    assert [f["id"] for f in data["sandbox_failures"]] == [str(job.id)]
    assert data["sandbox"]["jobs_failed_last_hour"] == 1
    assert browser.post(row["retry_url"]).status_code == 302
    job.refresh_from_db()
    assert job.status == "queued" and job.error == "" and job.result is None

    assert timing_services.do_run_timing_job(str(job.id), "w1") == "done"  # the slot is free again
    job.refresh_from_db()
    assert job.result["verdict"] == "OK" and job.result["sandbox"]["errors"] == 0
    assert job.attempts == 2
    assert browser.get("/timing/data.json").json()["sandbox_failures"] == []


def test_the_timing_page_has_the_retry_table_and_a_job_not_failed_in_the_sandbox_is_refused(
    alice, sum_package, enqueued
):
    job = submit_timing_job(alice, sum_package)
    TimingJob.objects.filter(pk=job.pk).update(status="failed", error="ValueError: bad package")
    browser = Client()
    browser.force_login(alice)
    page = browser.get("/timing/").content.decode()
    assert 'id="sandbox-failures"' in page and 'id="sandbox"' in page
    assert browser.get("/timing/data.json").json()["jobs"][0]["retry_url"] is None
    assert browser.post(f"/timing/retry/timing/{job.id}/").status_code == 400
    assert browser.get(f"/timing/retry/timing/{job.id}/").status_code == 405


def test_the_api_lists_and_retries_only_the_users_own_sandbox_failures(
    alice, bob, sum_package, enqueued
):
    job = submit_timing_job(alice, sum_package)
    TimingJob.objects.filter(pk=job.pk).update(
        status="failed", error="SandboxError: no verdict for program: exec: EAGAIN"
    )
    bob_api, alice_api = token_client(bob), token_client(alice)
    assert bob_api.get("/api/sandbox-failures/").json() == {"failures": []}
    assert bob_api.post(f"/api/sandbox-failures/timing/{job.id}/retry/").status_code == 404
    (failure,) = alice_api.get("/api/sandbox-failures/").json()["failures"]
    assert (failure["kind"], failure["id"]) == ("timing", str(job.id))
    response = alice_api.post(f"/api/sandbox-failures/timing/{job.id}/retry/")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    assert alice_api.post(f"/api/sandbox-failures/timing/{job.id}/retry/").status_code == 409
    assert alice_api.post("/api/sandbox-failures/timing/not-a-uuid/retry/").status_code == 404
    assert alice_api.post("/api/sandbox-failures/nonsense/1/retry/").status_code == 404


def _scoring_job(run, programs) -> ScoringJob:
    return ScoringJob.objects.create(
        training=run.training,
        step=0,
        request={
            # one timing round: these tests are about sandbox failures, not noise
            "reward_config": {**run.reward_config.engine_config().as_dict(), "timing_repeats": 1},
            "groups": [{"problem": "sum", "programs": programs}],
        },
    )


def test_a_scoring_job_failing_in_the_sandbox_gives_no_reward_and_is_scored_when_retried(
    built, alice, slot_uid, enqueued
):
    run = start_run(alice)
    fast = Problem.objects.get(slug="sum").solutions.get(name="accepted/fast.py").code
    programs = [fast, "print(0)\n", None]
    # a first job writes the worker's test inputs, so the failure below is the scoring's
    assert coordinator.do_score_rollouts(_scoring_job(run, programs).pk, "w") == "done"
    job = _scoring_job(run, programs)
    with processes_of(slot_uid, PROCESSES + 1), pytest.raises(SandboxError, match="scorings"):
        coordinator.do_score_rollouts(job.pk, "w")  # the group scored SANDBOX_RESCORES + 1 times
    job.refresh_from_db()
    assert failed_in_sandbox(job) and job.result is None  # no reward, not even a -1
    with pytest.raises(TimeoutError, match="failed in the sandbox"):
        coordinator._PolledScores(job.pk, timeout_s=0.2).result()  # the trainer waits for a retry

    retry.do_retry_job(alice, "scoring", job.pk)
    assert ScoringJob.objects.get(pk=job.pk).status == "queued"
    assert coordinator.do_score_rollouts(job.pk, "w") == "done"
    scores = coordinator._PolledScores(job.pk, timeout_s=1).result()[0]
    assert [s.verdict for s in scores] == ["OK", "WRONG_ANSWER", "FORMAT"]
    assert [s.reward for s in scores[1:]] == [-1.0, -1.0]
    assert ScoringJob.objects.get(pk=job.pk).result["sandbox"]["errors"] == 0


def test_an_evaluation_failed_in_the_sandbox_is_queued_again_where_it_scores(alice, bob, enqueued):
    evaluation = Evaluation.objects.create(
        owner=alice,
        team=Team.objects.get(name="red"),
        name="upload",
        source=Evaluation.Source.COMPLETIONS,
        status=Evaluation.Status.FAILED,
        error="SandboxError: sum: still failing in the sandbox after 3 scorings",
    )
    with pytest.raises(LookupError):
        retry.do_retry_job(bob, "evaluation", evaluation.pk)  # another team's
    response = token_client(alice).post(f"/api/sandbox-failures/evaluation/{evaluation.pk}/retry/")
    assert response.status_code == 202
    evaluation.refresh_from_db()
    assert evaluation.status == "queued" and evaluation.error == ""
    # uploads only score: the timing queue
    assert enqueued == [("evaluations.evaluate", [evaluation.pk], "timing")]


@override_settings(SANDBOX_ERRORS_DEGRADED=2)
def test_healthz_reports_the_isolation_and_is_degraded_past_the_sandbox_error_threshold(
    alice, sum_package, enqueued
):
    client = Client()
    client.force_login(alice)  # the sandbox's set-up is a detail for signed-in users
    body = client.get("/healthz").json()
    assert body["sandbox"]["isolation"] in ("cgroup-v2", "cgroup-v1", "uid-pool")
    assert body["sandbox"]["status"] == "ok" and body["status"] == "ok"
    job = submit_timing_job(alice, sum_package)
    assert timing_services.do_run_timing_job(str(job.id), "w1") == "done"
    result = TimingJob.objects.get(pk=job.pk).result
    result["sandbox"]["errors"] = 3  # three failed starts, each retried successfully
    TimingJob.objects.filter(pk=job.pk).update(result=result)
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200  # degraded, not down
    assert body["status"] == "degraded" and body["sandbox"]["status"] == "degraded"
    assert body["sandbox"]["errors_last_hour"] == 3 and body["sandbox"]["degraded_above"] == 2
    assert body["sandbox"]["workers"] == {"w1": body["sandbox"]["isolation"]}
