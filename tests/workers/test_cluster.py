"""Several hosts, tested (issue 20, items 1 and 3): two web processes and two timing hosts
started by scripts/cluster.py, sharing only PostgreSQL and the broker, each through a fault
proxy. A scoring job posted through the HTTP API is spread over both hosts; a host killed
mid-job leaves its job to the other, which completes it once with the fault-free verdicts;
the broker cut for 10 s loses no job (one posted during the cut included) and scores none
twice.

Every status change of a scoring job or part is written by a trigger to an audit table of
the cluster's database (Cluster.audit_scoring), so "scored once" is counted, not inferred:
a part is claimed (set `running` by a worker) and finished (`done`) once, a job finished
once."""

from __future__ import annotations

import signal
import time

import pytest

from execution.samples import FAST, SLOW
from scoring.client import ScoringClient
from scripts.cluster import Cluster, wait_until
from tests.conftest import SERVICES_MODE

pytestmark = [
    pytest.mark.skipif(
        not SERVICES_MODE,
        reason="the cluster needs PostgreSQL and Redis: services pass only "
        "(CODEOPT_TEST_SERVICES=1)",
    ),
    pytest.mark.django_db,  # the built problem is made in the session's test database
]

WRONG = FAST.replace("sum(nums)", "sum(nums) + 1")
VERDICT = {FAST: "OK", SLOW: "OK", WRONG: "WRONG_ANSWER", None: "FORMAT"}
GROUPS = [[FAST, WRONG], [WRONG, FAST, None], [SLOW], [None, FAST], [WRONG], [FAST]]
TRAIN = """
model = "tiny"
reward_config = "binary-top50"
split = "all"
max_problems = 1
group_size = 2
prompts_per_step = 1
steps = 8
max_new_tokens = 48
warm_start_steps = 20
checkpoint_every = 3
seed = 7
scoring = "timing_queue"
"""
RESCUE_DEADLINE_S = 120.0
"""The longest from a fault until a live host has the job again, and the longest its scoring
may then take (issue 20: "within a minute or two"; a dead worker is noticed after 30 s of
silence, docs/operations.md "Dead workers")."""


@pytest.fixture(scope="module")
def cluster(built_fixture, tmp_path_factory):
    """Two web processes, two timing hosts and a training host, the built "sum" problem and
    the built-in reward configurations loaded into the cluster's own database."""
    folder = tmp_path_factory.mktemp("cluster")
    with Cluster(timing_hosts=2, web=2, training_hosts=1, folder=folder) as running:
        running.manage("loaddata", str(built_fixture))
        running.audit_scoring()
        yield running


@pytest.fixture(scope="module")
def scoring(cluster):
    """A scoring client per web process (one user, one token)."""
    token = cluster.api_token("alice")
    return [
        ScoringClient(url, token, timeout=RESCUE_DEADLINE_S, poll_wait=5)
        for url in cluster.web_urls
    ]


def _body(groups) -> list[dict]:
    return [{"problem": "sum", "programs": programs} for programs in groups]


def _outcomes(answer: dict) -> list[list[tuple[str, bool]]]:
    return [[(s["verdict"], s["correct"]) for s in g["samples"]] for g in answer["groups"]]


def _job_row(cluster, job_id: int) -> tuple[str, str]:
    ((status, worker),) = cluster.sql(
        "SELECT status, worker FROM workers_scoringjob WHERE id = %s", [job_id]
    )
    return status, worker


def _diagnosis(cluster, job_id: int, host) -> str:
    """What a rescue that did not come shows: the job and its parts as stored, the
    heartbeats, and the end of the surviving host's log."""
    job = cluster.sql(
        "SELECT status, worker, stage, started_at FROM workers_scoringjob WHERE id = %s", [job_id]
    )
    parts = cluster.sql(
        "SELECT index, status, worker, started_at FROM workers_scoringpart WHERE job_id = %s"
        " ORDER BY index",
        [job_id],
    )
    beats = cluster.sql("SELECT hostname, last_seen, booted_at FROM workers_workerheartbeat")
    return (
        f"job: {job}\nparts: {parts}\nheartbeats: {beats}\n"
        f"{host.hostname}'s log, its end:\n{host.all_output()[-4000:]}"
    )


def _both_hosts_fit(cluster) -> None:
    """Wait until both timing hosts take scoring work (Cluster.wait_fit), a test failure
    naming each one's refusal at the deadline."""
    try:
        cluster.wait_fit()
    except TimeoutError as exc:
        raise AssertionError(str(exc)) from None


@pytest.fixture(scope="module")
def fault_free(cluster, scoring):
    """GROUPS scored with nothing going wrong: posted to one web process, its answer read
    from the other, once both hosts take scoring work."""
    _both_hosts_fit(cluster)
    job_id = scoring[0].submit(_body(GROUPS), "binary-top50")
    return job_id, scoring[1].wait(job_id)


def test_a_job_posted_to_the_api_is_spread_over_both_timing_hosts(cluster, fault_free):
    job_id, answer = fault_free
    assert answer["status"] == "done"
    assert _outcomes(answer) == [[(VERDICT[p], VERDICT[p] == "OK") for p in g] for g in GROUPS]
    scored_by = {g["worker"].split("#")[0] for g in answer["groups"]}
    both = {host.hostname for host in cluster.hosts}
    assert scored_by == both, [g["worker"] for g in answer["groups"]]  # both scored parts
    claims = cluster.scoring_claims(job_id)
    assert claims["job"]["done"] == 1 and claims["job"]["running"] == 1
    assert len(claims["parts"]) == len(GROUPS)
    assert all(p.get("running") == 1 and p.get("done") == 1 for p in claims["parts"].values())


def test_a_scoring_job_delivered_again_after_it_finished_is_skipped_not_scored_again(
    cluster, fault_free
):
    job_id, answer = fault_free
    query = "SELECT status, result::text, finished_at FROM workers_scoringjob WHERE id = %s"
    before = cluster.sql(query, [job_id])
    since = time.time()
    sent = [cluster.send_task("scoring.score_rollouts", [job_id], "timing")]
    for index in range(len(GROUPS)):
        sent.append(cluster.send_task("scoring.score_part", [job_id, index], "timing"))
    ended = [
        wait_until(lambda t=t: cluster.task_outcome(t), 60, f"the copy {t} to be taken")
        for t in sent
    ]
    assert ended[0].endswith(": 'done'"), ended[0]  # the job's status, as it was
    assert all(line.endswith(": 'ended'") for line in ended[1:]), ended
    assert cluster.scoring_claims(job_id, since=since) == {"job": {}, "parts": {}}
    assert cluster.sql(query, [job_id]) == before  # the row untouched: result and end time


def test_a_host_killed_mid_job_leaves_the_job_to_the_other_which_completes_it_once(
    cluster, scoring
):
    groups = [[SLOW, FAST], [SLOW, WRONG], [SLOW], [SLOW, None], [SLOW, FAST], [SLOW]]
    _both_hosts_fit(cluster)  # the survivor must take the job over, whichever it is
    job_id = scoring[0].submit(_body(groups), "binary-top50")

    def coordinator():
        status, worker = _job_row(cluster, job_id)
        assert status != "done", "the job ended before a host could be killed mid-job"
        return worker.split("#")[0] if status == "running" else None

    hostname = wait_until(coordinator, 60, "a host to take the job")
    victim = next(h for h in cluster.hosts if h.hostname == hostname)
    survivor = next(h for h in cluster.hosts if h is not victim)
    victim.kill(signal.SIGKILL)  # the whole host at once, pool process included
    killed_at = time.monotonic()
    try:
        assert _job_row(cluster, job_id)[0] == "running"  # killed mid-job

        def taken_over():
            status, worker = _job_row(cluster, job_id)
            return status == "done" or worker.startswith(survivor.hostname)

        try:  # the rescue: the survivor's sweep sends the job again, and a host takes it
            wait_until(taken_over, RESCUE_DEADLINE_S, "the survivor to take the job")
            answer = scoring[1].wait(job_id)  # TimeoutError past RESCUE_DEADLINE_S more
        except TimeoutError as exc:
            raise AssertionError(f"{exc}\n{_diagnosis(cluster, job_id, survivor)}") from None
        took_s = time.monotonic() - killed_at
        assert answer["status"] == "done"
        # a minute or two on a quiet host; the scoring of the six groups on the one core
        # left is the load's share of it, so the bound is the rescue's deadline twice
        assert took_s < 2 * RESCUE_DEADLINE_S, f"{took_s:.0f} s from the kill to the result"
        _, worker = _job_row(cluster, job_id)
        assert worker.startswith(survivor.hostname)  # the rescue ran it on the other host
        expected = [[(VERDICT[p], VERDICT[p] == "OK") for p in g] for g in groups]
        assert _outcomes(answer) == expected  # what a fault-free run gives (the test above)
        claims = cluster.scoring_claims(job_id)
        assert claims["job"]["done"] == 1  # completed once
        assert claims["job"]["running"] == 2  # by the killed host, then by the survivor
        assert len(claims["parts"]) == len(groups)
        assert all(p.get("done") == 1 for p in claims["parts"].values())  # each scored once
    finally:
        cluster.start_host(victim)  # back for the next test


def test_the_broker_cut_for_ten_seconds_loses_no_job_and_scores_none_twice(cluster, scoring):
    batches = [[[FAST], [SLOW, WRONG]], [[SLOW], [None, FAST]], [[WRONG, SLOW], [FAST]]]
    batches += [[[SLOW, FAST], [SLOW]]]
    jobs = [
        (scoring[i % 2].submit(_body(groups), "binary-top50"), groups)
        for i, groups in enumerate(batches)
    ]
    wait_until(
        lambda: any(_job_row(cluster, j)[0] == "running" for j, _ in jobs),
        60,
        "a job to start",
    )
    cluster.cut("broker")  # every process: both web processes and both hosts
    cut_at = time.monotonic()
    try:
        running = [j for j, _ in jobs if _job_row(cluster, j)[0] != "done"]
        assert running, "every job ended before the cut"
        # posted while no process reaches the broker: stored, answered 202, sent by a
        # host's sweep once the broker is back (foundation.sending.UNSENT)
        during = [[FAST], [WRONG]]
        jobs.append((scoring[0].submit(_body(during), "binary-top50"), during))
        assert _job_row(cluster, jobs[-1][0])[0] == "queued"
        time.sleep(max(0.0, 10.0 - (time.monotonic() - cut_at)))  # the fault lasts 10 s
    finally:
        cluster.restore()
    for job_id, groups in jobs:
        answer = scoring[job_id % 2].wait(job_id)
        assert answer["status"] == "done"
        assert _outcomes(answer) == [[(VERDICT[p], VERDICT[p] == "OK") for p in g] for g in groups]
        claims = cluster.scoring_claims(job_id)
        assert claims["job"] == {"queued": 1, "running": 1, "done": 1}, claims
        assert len(claims["parts"]) == len(groups)
        for part in claims["parts"].values():
            assert part.get("running") == 1 and part.get("done") == 1, claims
    for host in [*cluster.hosts, *cluster.trainers]:  # every host came through the cut
        assert host.alive(), host.all_output()[-3000:]


def test_a_training_worker_killed_mid_run_resumes_with_the_series_of_a_run_never_killed(cluster):
    """The run resumes from its checkpoint on the restarted host within RESCUE_DEADLINE_S,
    and ends with the same steps in every metric series as the same run without the fault
    (steps are seeded by (seed, step); the checkpoint keeps the next step's batch), no point
    of the killed attempt past the checkpoint (the checkpoint's own step, the update that made
    it, is reported at its version and stays) and no rollout stored twice."""
    cluster.api_token("carol", team="green")
    host = cluster.trainers[0]
    assert host.alive(), host.all_output()[-3000:]  # else its runs would wait 900 s queued
    reference = cluster.train(TRAIN, "carol", "never-killed")
    killed = cluster.train(TRAIN, "carol", "killed")  # waits behind it: one training host
    assert cluster.run_ended(reference) == "finished", host.all_output()[-3000:]
    wait_until(lambda: cluster.run_state(killed)[1] >= 4, 300, "a checkpoint and a step past it")
    version = cluster.run_state(killed)[1]
    host.kill(signal.SIGKILL)
    killed_at, killed_wall = time.monotonic(), time.time()
    checkpoint = cluster.checkpoint_versions(killed)[-1]
    assert 3 <= checkpoint <= version
    cluster.start_host(host)
    wait_until(lambda: cluster.run_state(killed)[1] > version, RESCUE_DEADLINE_S, "a resume")
    assert time.monotonic() - killed_at < RESCUE_DEADLINE_S
    assert cluster.run_ended(killed) == "finished", host.all_output()[-3000:]

    assert cluster.series_steps(killed) == cluster.series_steps(reference)
    ((stale,),) = cluster.sql(
        "SELECT count(*) FROM runs_metricpoint p JOIN runs_metricseries s ON s.id = p.series_id"
        " WHERE s.run_id = %s AND p.step > %s AND p.recorded_at < to_timestamp(%s)",
        [killed, checkpoint, killed_wall],
    )
    assert stale == 0
    total, distinct = cluster.rollout_counts(killed)
    assert total == distinct == cluster.rollout_counts(reference)[0] == 8 * 2
