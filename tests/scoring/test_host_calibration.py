"""Per-host calibration (issue 20, item 2): each timing host measures the anchor programs,
its factor (geometric mean of host / baseline anchor cost) puts its measurements on the
stored references' scale, a slowed host then ranks like a normal one, a stale or unstable
host refuses scoring work and says why, and the Timing page and /healthz show the figures."""

from __future__ import annotations

import math
import random
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from django.test import Client
from django.utils import timezone
from scipy.stats import gmean

from execution import engine
from execution.anchors import ANCHORS, host_factor, measure_anchors, unfit_reason
from execution.engine import Case, Program, lowest_cost, measure
from execution.samples import FAST
from rewards.engine import ProblemRuntimes, RewardConfig
from scoring import calibration, coordinator
from scoring.coordinator import do_score_part, do_score_rollouts
from scoring.models import HostCalibration, ScoringJob
from scoring.scorer import ScoringProblem, score_group
from tests.conftest import wait_until

STORED = RewardConfig(name="stored-references", reference_timing="stored")
STEADY = RewardConfig(
    name="steady-stored", reference_timing="stored", timing_repeats=10, timing_settle=0.005
)  # the ranks that hold still on a busy host (binary-top30-steady's timing)


# -- the factor ---------------------------------------------------------------------------------


def test_the_factor_is_the_geometric_mean_of_the_per_anchor_ratios():
    generator = random.Random(20)
    for _ in range(50):
        names = [f"a{i}" for i in range(generator.randint(1, 6))]
        baseline = {n: generator.uniform(0.01, 2.0) for n in names}
        host = {n: baseline[n] * generator.uniform(0.5, 3.0) for n in names}
        host["only-here"] = 1.0  # an anchor the baseline lacks does not count
        ratios = [host[n] / baseline[n] for n in names]
        fit = host_factor(host, baseline)
        assert fit.factor == pytest.approx(gmean(ratios), rel=1e-12)  # scipy's, the reference
        assert fit.spread == pytest.approx(max(ratios) / min(ratios), rel=1e-12)
        assert set(fit.ratios) == set(names)
    with pytest.raises(ValueError, match="no anchor in common"):
        host_factor({"x": 1.0}, {"y": 1.0})


def test_a_factor_is_unfit_when_stale_or_unstable_and_fit_otherwise():
    limits = dict(stale_after_s=1200.0, max_spread=2.0)
    assert unfit_reason(1.3, 1.1, 30.0, **limits) == ""
    assert "stale" in unfit_reason(1.3, 1.1, 1201.0, **limits)
    assert "unstable" in unfit_reason(1.3, 2.5, 30.0, **limits)
    assert unfit_reason(None, None, None, **limits) == ""  # never calibrated: not refused


# -- a slowed host ------------------------------------------------------------------------------

REFERENCE_WORK = [60_000, 84_000, 120_000, 168_000, 240_000, 336_000]  # x1.4 apart
CANDIDATE_WORK = [72_000, 102_000, 144_000]  # between two references each
LOOP = (
    "n = int(input())\nd = dict()\n"
    "for i in range({work}):\n    d[(i * 7919) % 1000003] = i\nprint(n)\n"
)
ANCHOR_REPEATS = 9  # more than a worker takes: the test compares two hosts on a busy machine
SLOWDOWN = 2.5
"""How much slower the slowed host's CPU is (a slower clock or older cores)."""


def _case(folder: Path, name: str, kind: str, value: int) -> Case:
    (folder / f"{name}.in").write_text(f"{value}\n")
    (folder / f"{name}.ans").write_text(f"{value}\n")
    return Case(name, folder / f"{name}.in", folder / f"{name}.ans", kind)


def _percentiles(problem: ScoringProblem, factor: float) -> np.ndarray:
    programs = [LOOP.format(work=w) for w in CANDIDATE_WORK]
    scores = score_group(programs, problem, STEADY, host_factor=factor)
    assert all(s.correct for s in scores), [s.verdict for s in scores]
    return np.array([s.speed_percentile for s in scores])


def _slower_cpu(monkeypatch) -> None:
    """Every sandboxed run's CPU time SLOWDOWN times longer, as a slower CPU gives it: the
    programs still run for real; only the time the runner reports is stretched (a neighbour
    on the core does not do it here: the lowest of settled repeats keeps a run that the
    neighbour left alone, see the module's notes in docs/operations.md)."""
    real = engine.run_once

    def slowed(*args, **kwargs):
        result = real(*args, **kwargs)
        result.cpu_samples = [t * SLOWDOWN for t in result.cpu_samples]
        if result.cpu_s is not None:
            result.cpu_s *= SLOWDOWN
        return result

    monkeypatch.setattr(engine, "run_once", slowed)


def test_a_slowed_host_ranks_like_a_normal_one_once_its_factor_is_applied(tmp_path, monkeypatch):
    """Stored references and the baseline anchors are measured on the normal host; the
    slowed host measures its anchors (real runs) and scores the same candidates. Without
    the factor its percentiles move by a reference or more each; divided by the factor it
    measured, they stay within the noise band of the normal host's."""
    correctness = [_case(tmp_path, "small", "correctness", 7)]
    optimization = [_case(tmp_path, "large", "optimization", 3)]
    references = {f"r{i}": LOOP.format(work=w) for i, w in enumerate(REFERENCE_WORK)}
    reports = measure(
        [Program(name, source, "python") for name, source in references.items()],
        optimization,
        repeats=10,
        settle=0.005,
    )
    stored = np.array([[lowest_cost(reports[n].tests[0], "cpu")] for n in references])
    problem = ScoringProblem(
        "loops",
        ProblemRuntimes(stored, np.array([2.0]), np.array([2.0])),
        correctness,
        optimization,
    )
    baseline = measure_anchors(ANCHOR_REPEATS, tmp_path)  # where the references were measured
    normal_factor = host_factor(measure_anchors(ANCHOR_REPEATS), baseline).factor
    normal = _percentiles(problem, normal_factor)
    noise = np.abs(_percentiles(problem, normal_factor) - normal).mean()  # the same host again
    _slower_cpu(monkeypatch)
    step = 100.0 / len(REFERENCE_WORK)  # one reference: the noise band of these percentiles
    # Up to 3 calibrations of the slowed host: a neighbour's burst (another test's worker
    # calibrating on the same core) can misjudge one; the factor must fit at least once,
    # and the uncorrected ranks must move every time (without the factor none fits).
    tries = []
    for _ in range(3):
        slowed = host_factor(measure_anchors(ANCHOR_REPEATS, tmp_path), baseline)
        corrected = _percentiles(problem, slowed.factor)
        raw = _percentiles(problem, 1.0)
        off = np.abs(corrected - normal).mean()  # what the noise leaves after the factor
        moved = np.abs(raw - normal).mean()  # without it: a reference or more on average
        tries.append(
            f"factor {slowed.factor:.2f}, normal {normal} (noise {noise:.1f}), "
            f"corrected {corrected} (off {off:.1f}), raw {raw} (moved {moved:.1f})"
        )
        assert moved >= step, tries[-1]
        # (1.5 references: a busy host's anchors misjudge the factor by up to ~30%;
        # uncorrected, 2.5x moves the candidates by about 2.7 references)
        if 1.8 < slowed.factor < 3.4 and off <= 1.5 * step + noise and moved >= 1.5 * off:
            break
    else:
        raise AssertionError("the factor never fit: " + " | ".join(tries))


# -- stale and unstable hosts refuse scoring work ------------------------------------------------


def _calibrated(hostname: str, factor: float, age_s: float = 0.0, spread: float = 1.05):
    return HostCalibration.objects.create(
        hostname=hostname,
        measured_at=timezone.now() - timedelta(seconds=age_s),
        anchor_costs={name: 0.05 * factor for name in ANCHORS},
        factor=factor,
        spread=spread,
        baseline="test",
    )


def _job(config: RewardConfig = STORED) -> ScoringJob:
    groups = [{"problem": "sum", "programs": [FAST]}]
    return ScoringJob.objects.create(request={"reward_config": config.as_dict(), "groups": groups})


def test_a_stale_host_hands_the_job_back_and_a_calibrated_host_scores_it_with_its_factor(
    built, enqueued, settings, monkeypatch
):
    def no_sleep(seconds):
        raise AssertionError(f"a worker slot slept {seconds} s instead of a countdown")

    monkeypatch.setattr(coordinator.time, "sleep", no_sleep)
    stale_after = 2 * settings.CODEOPT_ANCHOR_INTERVAL_S
    _calibrated("stale@rack-1", 1.0, age_s=stale_after + 5)
    _calibrated("fresh@rack-2", 1.7)
    job = _job()
    assert do_score_rollouts(job.pk, "stale@rack-1") == "refused"
    job.refresh_from_db()
    assert job.status == "queued" and job.worker == ""
    assert "stale@rack-1 refused it: calibration stale" in job.stage
    # sent again, once, to start REFUSED_RESEND_S later
    assert enqueued == [("scoring.score_rollouts", [job.pk], None, coordinator.REFUSED_RESEND_S)]
    assert do_score_rollouts(job.pk, "fresh@rack-2") == "done"
    job.refresh_from_db()
    assert job.result["host_factors"] == [pytest.approx(1.7)]
    assert job.result["groups"][0][0]["host_factor"] == pytest.approx(1.7)
    assert job.result["workers"][0].startswith("fresh@rack-2#")
    assert job.parts.count() == 1  # scored once
    assert do_score_rollouts(job.pk, "stale@rack-1") == "refused"  # a late message: left alone
    assert len(enqueued) == 1


def test_an_unstable_host_refuses_a_part_and_leaves_it_queued(built, enqueued):
    _calibrated("shaky@rack-3", 1.1, spread=3.0)
    job = _job()
    coordinator._open_parts(job)
    answer = do_score_part(job.pk, 0, "shaky@rack-3")
    assert answer.startswith("refused: calibration unstable"), answer
    assert job.parts.get().status == "queued"


def test_references_measured_beside_the_programs_take_no_factor(built, enqueued):
    _calibrated("fresh@rack-2", 1.7)
    job = _job(RewardConfig(name="re-measured", reference_timing="interleaved"))
    assert do_score_rollouts(job.pk, "fresh@rack-2") == "done"
    job.refresh_from_db()
    assert job.result["host_factors"] == [None]


# -- baseline and the worker's calibration loop -------------------------------------------------


@pytest.mark.django_db
def test_without_a_build_the_first_calibration_is_the_baseline():
    first = calibration.do_calibrate_host("a@one", {n: 0.1 for n in ANCHORS})
    assert first.factor == pytest.approx(1.0) and "first recorded" in first.baseline
    second = calibration.do_calibrate_host("b@two", {n: 0.15 for n in ANCHORS})
    assert second.factor == pytest.approx(1.5) and "first calibration (a@one)" in second.baseline


@pytest.mark.django_db
def test_a_host_keeps_its_newest_calibrations_and_the_first_one_stays_the_baseline(monkeypatch):
    monkeypatch.setattr(calibration, "CALIBRATIONS_KEPT", 5)
    rows = [calibration.do_calibrate_host("a@one", {n: 0.1 for n in ANCHORS})]
    other = calibration.do_calibrate_host("b@two", {n: 0.2 for n in ANCHORS})
    rows += [
        calibration.do_calibrate_host("a@one", {n: 0.1 + i / 100 for n in ANCHORS})
        for i in range(1, 9)
    ]
    kept = set(HostCalibration.objects.filter(hostname="a@one").values_list("pk", flat=True))
    assert kept == {rows[0].pk} | {row.pk for row in rows[-5:]}  # the first, the 5 newest
    assert HostCalibration.objects.filter(pk=other.pk).exists()  # another host's untouched
    assert calibration.baseline()[1] == "first calibration (a@one)"
    assert calibration.host_rows()[0]["measured_at"] == rows[-1].measured_at.isoformat()


def test_the_dataset_build_stores_the_anchors_as_the_baseline(built):
    from problems.models import DatasetBuild

    build = DatasetBuild.objects.exclude(anchor_costs={}).get()
    assert set(build.anchor_costs) == set(ANCHORS)
    slower = {n: 2 * c for n, c in build.anchor_costs.items()}
    row = calibration.do_calibrate_host("c@three", slower)
    assert row.factor == pytest.approx(2.0) and row.baseline == f"dataset build {build.pk}"


@pytest.mark.django_db(transaction=True)
def test_a_timing_worker_calibrates_at_start_and_again_each_interval(settings, monkeypatch):
    settings.CODEOPT_ANCHOR_INTERVAL_S = 1
    measured = []
    monkeypatch.setattr(
        calibration, "measure_anchors", lambda: measured.append(1) or dict.fromkeys(ANCHORS, 0.1)
    )
    assert calibration.start_calibrating("d@four", ["default"]) is None  # not a timing worker
    thread = calibration.start_calibrating("d@four", ["default", "timing"])
    try:
        wait_until(
            lambda: HostCalibration.objects.filter(hostname="d@four").count() >= 2,
            10,
            "two calibrations",
        )
    finally:
        calibration.stop_calibrating()
        thread.join(5)
    assert not thread.is_alive()


@pytest.mark.django_db(transaction=True)
def test_an_unstable_calibration_is_measured_again_soon_not_after_the_interval(
    settings, monkeypatch
):
    """A burst of load made one anchor 3x slower: the host refuses scoring work, and measures
    again after RETRY_S (not the 600 s interval); stable then, it takes work again."""
    settings.CODEOPT_ANCHOR_INTERVAL_S = 600
    calibration.do_calibrate_host("base@zero", dict.fromkeys(ANCHORS, 0.1))  # the baseline
    burst = {**dict.fromkeys(ANCHORS, 0.1), next(iter(ANCHORS)): 0.3}
    measured = [burst, dict.fromkeys(ANCHORS, 0.1)]
    monkeypatch.setattr(calibration, "measure_anchors", lambda: measured.pop(0))
    monkeypatch.setattr(calibration, "RETRY_S", 0.2)
    thread = calibration.start_calibrating("e@five", ["timing"])
    try:
        wait_until(lambda: not measured, 10, "a second calibration")
        wait_until(
            lambda: HostCalibration.objects.filter(hostname="e@five").count() == 2,
            10,
            "the second calibration stored",
        )
    finally:
        calibration.stop_calibrating()
        thread.join(5)
    first, second = HostCalibration.objects.filter(hostname="e@five").order_by("measured_at")
    assert first.spread == pytest.approx(3.0) and second.spread == pytest.approx(1.0)
    assert calibration.host_fitness("e@five").reason == ""


# -- the figures shown ----------------------------------------------------------------------------


@pytest.fixture
def hosts(db, settings):
    _calibrated("fresh@rack-2", 1.2345, age_s=12)
    _calibrated("stale@rack-1", 0.9, age_s=2 * settings.CODEOPT_ANCHOR_INTERVAL_S + 60)


def test_healthz_shows_factor_age_and_spread_per_host_to_signed_in_users_only(hosts, alice):
    assert "calibration" not in Client().get("/healthz").json()
    browser = Client()
    browser.force_login(alice)
    body = browser.get("/healthz").json()["calibration"]
    by_host = {h["hostname"]: h for h in body["hosts"]}
    assert by_host["fresh@rack-2"]["factor"] == pytest.approx(1.2345)
    assert 12 <= by_host["fresh@rack-2"]["age_s"] < 60
    assert by_host["fresh@rack-2"]["spread"] == pytest.approx(1.05)
    assert by_host["fresh@rack-2"]["refuses_scoring"] == ""
    assert by_host["stale@rack-1"]["refuses_scoring"].startswith("calibration stale")
    assert body["stale_after_s"] == 2 * body["interval_s"]
    assert body["retry_s"] == min(body["interval_s"], calibration.RETRY_S)


def test_the_timing_page_shows_each_hosts_calibration_and_why_one_refuses(hosts, alice):
    browser = Client()
    browser.force_login(alice)
    page = browser.get("/timing/").content.decode()
    assert "Factor (host / baseline CPU time)" in page and "Spread (max / min)" in page
    assert "fresh@rack-2" in page and "1.23" in page
    assert "refuses: calibration stale" in page
    assert "an unstable host measures again 30 s later" in page
    data = browser.get("/timing/data.json").json()["calibration"]
    assert {h["hostname"] for h in data["hosts"]} == {"fresh@rack-2", "stale@rack-1"}
    assert math.isfinite(data["max_spread"])


def test_with_calibration_off_no_host_refuses_and_none_applies_an_old_factor(
    hosts, alice, settings
):
    """Turned off (interval 0) after hosts calibrated: their rows are neither stale against a
    limit of 0 s (every job refused) nor applied; the page and /healthz say so."""
    settings.CODEOPT_ANCHOR_INTERVAL_S = 0
    for hostname in ("fresh@rack-2", "stale@rack-1", "never@rack-3"):
        assert calibration.host_fitness(hostname) == calibration.Fitness(1.0, "", False)
    browser = Client()
    browser.force_login(alice)
    rows = browser.get("/healthz").json()["calibration"]["hosts"]
    assert [row["refuses_scoring"] for row in rows] == ["", ""]
    page = browser.get("/timing/").content.decode()
    assert "Calibration is off" in page and "refuses: calibration" not in page
