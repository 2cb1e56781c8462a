"""Samples sent one at a time, gathered into their group before one job scores them (issue 34,
items 1, 2 and 4: POST /api/scoring/samples/, scoring/services/gathering.py), against a live
daphne and, where scores are needed, a real timing worker."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from rest_framework.authtoken.models import Token

from execution.samples import FAST
from scoring.client import SandboxFailed, ScoringClient, ScoringFailed
from scoring.models import ScoringGather, ScoringJob
from tests.conftest import token_client, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

OK, WRONG, NO_PROGRAM = FAST + "```", "print(0)\n```", "no program"


def send_apart(client: ScoringClient, group: str, texts: list[str], **fields) -> list[dict]:
    """Each text in a request of its own, all at once, as verl's reward workers send them."""

    def one(text):
        return client.score_samples("sum", [text], "binary-top50", group=group, **fields)[0]

    with ThreadPoolExecutor(len(texts)) as pool:
        return list(pool.map(one, texts))


def sent_in_background(client: ScoringClient, group_size: int) -> tuple[threading.Thread, list]:
    """One sample sent from a thread (as a trainer's worker would); what it raised, once
    it is joined."""
    raised: list[Exception] = []

    def send():
        try:
            client.score_samples("sum", [OK], "binary-top50", group="row-1", group_size=group_size)
        except ScoringFailed as exc:  # SandboxFailed too
            raised.append(exc)

    sender = threading.Thread(target=send)
    sender.start()
    return sender, raised


def test_samples_sent_one_at_a_time_are_scored_as_one_group_per_prompt(
    built, alice, asgi_server, celery_worker_process
):
    client = ScoringClient(asgi_server, Token.objects.create(user=alice).key, timeout=300)
    first = [OK, WRONG, NO_PROGRAM, OK]
    second = [WRONG, NO_PROGRAM]
    with ThreadPoolExecutor(2) as pool:  # two prompts' samples arriving interleaved
        a = pool.submit(send_apart, client, "row-1", first, group_size=4)
        b = pool.submit(send_apart, client, "row-2", second, group_size=2)
        answers, others = a.result(), b.result()

    jobs = list(ScoringJob.objects.order_by("pk"))
    assert len(jobs) == 2  # one job per group, not one per sample
    by_job = {job.pk: job.request["groups"][0]["completions"] for job in jobs}
    assert sorted(by_job[answers[0]["group"]["job"]]) == sorted(first)
    assert sorted(by_job[others[0]["group"]["job"]]) == sorted(second)
    assert {a["group"]["job"] for a in answers} == {answers[0]["group"]["job"]}
    assert [a["verdict"] for a in answers] == ["OK", "WRONG_ANSWER", "FORMAT", "OK"]
    assert [a["reward"] for a in answers] == [1.0, -1.0, -1.0, 1.0]
    assert [a["group"]["size"] for a in answers] == [4] * 4
    assert {a["group"]["kind"] for a in answers} == {"mixed"}
    assert {o["group"]["kind"] for o in others} == {"all_negative"}
    assert not ScoringGather.objects.filter(open=True).exists()


def test_a_sample_whose_group_mates_never_come_is_scored_when_the_window_closes(
    built, alice, asgi_server, celery_worker_process
):
    client = ScoringClient(asgi_server, Token.objects.create(user=alice).key, timeout=300)
    [answer] = send_apart(client, "row-9", [OK], group_size=3, window_s=1)
    assert answer["verdict"] == "OK" and answer["group"]["size"] == 1  # says how many came
    gather = ScoringGather.objects.get()
    assert not gather.open and gather.job_id == answer["group"]["job"]
    assert (gather.closes_at - gather.opened_at).total_seconds() == pytest.approx(1.0)


def test_a_group_failed_in_the_sandbox_gets_no_reward_and_names_its_job(built, alice, asgi_server):
    client = ScoringClient(asgi_server, Token.objects.create(user=alice).key, timeout=120)
    sender, raised = sent_in_background(client, group_size=1)
    job = wait_until(lambda: ScoringJob.objects.first(), 60, "the gathered group's job")
    error = "SandboxError: sum: still failing in the sandbox after 3 scorings"
    ScoringJob.objects.filter(pk=job.pk).update(status="failed", error=error)
    sender.join(timeout=60)
    assert len(raised) == 1 and isinstance(raised[0], SandboxFailed)
    assert raised[0].job_id == job.pk
    assert "failed in the sandbox" in str(raised[0])


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"problem": "nope"}, "problem"),
        ({"reward_config": "nope"}, "reward_config"),
        ({"group_size": 0}, "group_size"),
        ({"group_size": "8"}, "group_size"),
        ({"group_size": None}, "group_size"),
        ({"window_s": 10_000}, "window_s"),
        ({"group": "x" * 201}, "group"),
        ({"group": {}}, "group"),  # a key of the gathering: was a 500 (schemathesis' coverage)
        ({"problem": ["sum"]}, "problem"),
        ({"completions": []}, "completions"),
        ({"completions": ["x" * 70_000]}, "completions[0]"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_refused_sample_names_its_field_and_gathers_nothing(built, alice, change, field):
    body = {
        "reward_config": "binary-top50",
        "problem": "sum",
        "completions": [OK],
        "group": "row-1",
        "group_size": 4,
        **change,
    }
    answer = token_client(alice).post("/api/scoring/samples/", body, format="json")
    assert answer.status_code == 400, answer.content
    assert field in answer.json(), answer.json()
    assert not ScoringGather.objects.exists() and not ScoringJob.objects.exists()


def test_a_gather_gone_while_its_samples_wait_is_a_503_not_a_server_error(
    built, alice, asgi_server
):
    client = ScoringClient(asgi_server, Token.objects.create(user=alice).key, timeout=120)
    sender, raised = sent_in_background(client, group_size=2)
    gather = wait_until(lambda: ScoringGather.objects.first(), 60, "the open gather")
    gather.delete()  # an operator clearing the table, say
    sender.join(timeout=60)
    assert len(raised) == 1 and "could not be read" in str(raised[0])
