"""Scoring for any trainer over the API (issue 18, item 2): POST /api/scoring/ checks every
field and queues nothing on a bad one; the job runs through the timing worker's own scoring
(scoring/coordinator.do_score_rollouts, called here as the worker calls it, with the real
sandbox); GET answers the groups in the order sent, the group kinds, and with a run and a step
the samples and groups/* series are the run's."""

from __future__ import annotations

import pytest

from execution.samples import FAST, SLOW
from foundation.tenancy import Team
from runs import services as run_services
from runs.reads import read_metrics
from scoring.coordinator import do_score_rollouts
from scoring.models import ScoringJob
from training.models import RolloutSample

pytestmark = pytest.mark.django_db
WRONG = FAST.replace("sum(nums)", "sum(nums) + 1")
GOOD = {"reward_config": "binary-top50", "groups": [{"problem": "sum", "programs": [FAST]}]}


@pytest.fixture
def send(alice_api, django_capture_on_commit_callbacks):
    """POST a request; the jobs it queues are sent (to `enqueued`) as on a commit."""

    def post(body):
        with django_capture_on_commit_callbacks(execute=True):
            return alice_api.post("/api/scoring/", body, format="json")

    return post


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**GOOD, "reward_config": "no-such-config"}, "reward_config"),
        ({**GOOD, "groups": [{"problem": "nope", "programs": [FAST]}]}, "groups[0].problem"),
        ({**GOOD, "groups": []}, "groups"),
        ({**GOOD, "groups": [{"problem": "sum", "programs": [FAST, 3]}]}, "groups[0].programs[1]"),
        ({**GOOD, "groups": [{"problem": "sum"}]}, "groups[0]"),
        ({**GOOD, "step": "3"}, "step"),
        ({**GOOD, "step": -1}, "step"),
        ({**GOOD, "speed": 1}, "speed"),
        ({**GOOD, "request_key": 5}, "request_key"),
        ({**GOOD, "request_key": "k" * 101}, "request_key"),
        (
            {**GOOD, "groups": [{"problem": "sum", "programs": ["x" * 70_000]}]},
            "groups[0].programs[0]",
        ),  # fmt: skip
    ],
)
def test_a_bad_field_is_a_400_naming_it_and_nothing_is_queued(built, send, enqueued, body, field):
    answer = send(body)
    assert answer.status_code == 400, answer.content
    assert field in answer.json(), answer.json()
    assert enqueued == [] and not ScoringJob.objects.exists()


def test_too_many_programs_is_a_400_and_nothing_is_queued(built, send, enqueued, settings):
    settings.CODEOPT_SCORING_MAX_PROGRAMS = 3
    body = {**GOOD, "groups": [{"problem": "sum", "programs": [FAST, SLOW]}] * 2}
    answer = send(body)
    assert answer.status_code == 400 and "at most 3" in answer.json()["groups"][0]
    assert enqueued == [] and not ScoringJob.objects.exists()


def test_the_largest_request_the_limits_allow_is_not_refused_for_its_size(
    built, send, enqueued, settings
):
    """Every program at CODEOPT_SCORING_MAX_PROGRAM_BYTES and as many as allowed: the body
    (32 MiB with the defaults) fits Django's request size limit, which derives from them."""
    limit = settings.CODEOPT_SCORING_MAX_PROGRAM_BYTES
    program = "#" + "x" * (limit - 11) + "\nprint(1)"  # JSON escapes the newline
    count = settings.CODEOPT_SCORING_MAX_PROGRAMS
    answer = send({**GOOD, "groups": [{"problem": "sum", "programs": [program] * count}]})
    assert answer.status_code == 202, answer.content[:300]
    assert len(enqueued) == 1


def test_another_teams_run_is_a_404_and_nothing_is_queued(built, send, enqueued, bob):
    theirs = run_services.do_create_run(
        owner=bob, team=Team.objects.get(name="blue"), name="bob-run"
    )
    for run in (theirs.pk, 10**12):
        answer = send({**GOOD, "run": run, "step": 0})
        assert answer.status_code == 404, answer.content
    assert enqueued == [] and not ScoringJob.objects.exists()


def test_requests_in_flight_are_bounded_per_token(built, send, enqueued, settings):
    settings.CODEOPT_SCORING_MAX_IN_FLIGHT = 1
    assert send(GOOD).status_code == 202
    assert send(GOOD).status_code == 429
    assert len(enqueued) == 1


def test_a_job_is_scored_on_the_timing_queue_and_answered_in_the_order_sent(
    built, send, enqueued, alice_api, bob_api, alice_run
):
    groups = [
        {"problem": "sum", "programs": [WRONG, FAST, None, SLOW]},
        {"problem": "sum", "completions": ["print(1)", FAST + "```\nthat is it"]},
    ]
    answer = send({"reward_config": "binary-top50", "groups": groups, "run": alice_run.pk,
                   "step": 4, "policy_version": 1})  # fmt: skip
    assert answer.status_code == 202
    job_id = answer.json()["id"]
    assert answer.json() == {"id": job_id, "status": "queued"}
    assert enqueued == [("scoring.score_rollouts", [job_id], None)]
    assert alice_api.get(f"/api/scoring/{job_id}/").json()["status"] == "queued"
    assert bob_api.get(f"/api/scoring/{job_id}/").status_code == 404

    assert do_score_rollouts(job_id, "test-worker") == "done"  # what the timing task calls
    done = alice_api.get(f"/api/scoring/{job_id}/", {"wait": "5"}).json()
    assert done["status"] == "done" and done["progress"] == 1.0
    first, second = done["groups"]
    assert [s["verdict"] for s in first["samples"]] == ["WRONG_ANSWER", "OK", "FORMAT", "OK"]
    assert [s["reward"] for s in first["samples"]] == [-1.0, 1.0, -1.0, -1.0]
    assert [s["verdict"] for s in second["samples"]] == ["FORMAT", "OK"]  # no fence: no program
    assert second["samples"][1]["program"] == FAST
    assert done["group_kinds"] == {
        "all_negative": 0.0, "all_positive": 0.0, "mixed": 1.0, "all_correct_tied": 0.0
    }  # fmt: skip
    assert done["staleness"] == 3.0 and done["queue_wait_s"] >= 0

    # the external run's step, stored as our trainer stores its steps
    samples = RolloutSample.objects.filter(training__run=alice_run, step=4)
    assert samples.count() == 6
    assert list(samples.filter(group=1).values_list("completion", flat=True))[1].endswith("it")
    series = read_metrics(alice_run, None, 100)
    assert series["groups/mixed"]["values"] == [1.0]
    assert series["staleness/policy_steps"]["values"] == [3.0]
    assert "sandbox/verdict_format" in series

    # its page says who trains it (not "step 0 of" a config it does not have)
    from django.test import Client

    browser = Client()
    browser.force_login(alice_run.owner)
    page = browser.get(f"/runs/{alice_run.pk}/").content.decode()
    assert "Trained elsewhere" in page and 'id="run-last-step">4<' in page
    assert 'id="training-step"' not in page

    # delivered again: nothing scored twice, nothing written twice
    assert do_score_rollouts(job_id, "test-worker") == "done"
    assert samples.count() == 6


def test_a_run_our_trainer_trains_cannot_be_written_by_the_api(built, send, enqueued, alice_run):
    from training.models import TrainingRun

    TrainingRun.objects.create(run=alice_run, config={"steps": 3}, checkpoint_dir="/tmp/x")
    answer = send({**GOOD, "run": alice_run.pk, "step": 0})
    assert answer.status_code == 400 and "run" in answer.json()
    assert enqueued == []


def test_a_request_sent_again_with_its_key_answers_the_first_job_and_queues_nothing(
    built, send, enqueued
):
    first = send({**GOOD, "request_key": "step-7-try"})
    again = send({**GOOD, "request_key": "step-7-try"})
    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"]
    assert ScoringJob.objects.count() == 1 and len(enqueued) == 1
    other = send({**GOOD, "request_key": "step-8"})  # another key: another job
    assert other.status_code == 202 and other.json()["id"] != first.json()["id"]
    changed = {**GOOD, "groups": [{"problem": "sum", "programs": [SLOW]}]}
    refused = send({**changed, "request_key": "step-7-try"})
    assert refused.status_code == 400 and "another body" in refused.json()["request_key"][0]
    assert ScoringJob.objects.count() == 2 and len(enqueued) == 2


def test_the_client_retrying_a_post_whose_answer_was_lost_gets_one_job(
    built, alice, enqueued, live_server, monkeypatch
):
    """The first POST reaches the server and queues the job, but its answer never reaches
    the client (a proxy cut, a timeout): the client's retry carries the same key."""
    from rest_framework.authtoken.models import Token

    from scoring import client as client_module

    real = client_module.api_request
    lost: list[str] = []

    def answer_lost_once(method, url, token, body, timeout):
        answer = real(method, url, token, body, timeout)
        if method == "POST" and not lost:
            lost.append(answer["id"])
            raise ConnectionError("the answer was lost on the way back")
        return answer

    monkeypatch.setattr(client_module, "api_request", answer_lost_once)
    monkeypatch.setattr(client_module.time, "sleep", lambda s: None)  # the retry's backoff
    token, _ = Token.objects.get_or_create(user=alice)
    scoring = client_module.ScoringClient(live_server.url, token.key)
    job_id = scoring.submit([("sum", [FAST])], "binary-top50")
    assert lost == [job_id]
    assert ScoringJob.objects.count() == 1
