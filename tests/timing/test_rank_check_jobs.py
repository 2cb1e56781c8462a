"""Rank checks: a built problem's own correct programs re-scored as training scores a group,
from the Timing page, on a timing job; bad requests named."""

from __future__ import annotations

import pytest
from django.test import Client

from foundation.ranking import DEFAULT_TIE_BAND
from timing import services as timing_services
from timing.models import TimingJob

pytestmark = pytest.mark.django_db(transaction=True)


def rank_check(owner, **overrides) -> TimingJob:
    fields = dict(
        package_dir="",
        source="",
        language="python",
        modes="cpu",
        repeats=5,
        remeasure=2,
        kind="rank_check",
        problem="sum",
        reward_config="binary-top30",
    )
    fields.update(overrides)
    return timing_services.do_submit_timing_job(owner, **fields)


@pytest.mark.parametrize(
    ("override", "field"),
    [({"problem": "nope"}, "problem"), ({"reward_config": "nope"}, "reward_config"),
     ({"remeasure": 1}, "remeasure")],
)  # fmt: skip
def test_a_bad_rank_check_is_refused_naming_the_field_and_nothing_is_stored(
    built, alice, override, field
):
    with pytest.raises(ValueError, match=f"^{field}:"):
        rank_check(alice, **override)
    assert not TimingJob.objects.exists()


def test_a_rank_check_scores_the_problems_references_and_reports_their_jitter(
    built, alice, enqueued
):
    job = rank_check(alice)
    assert timing_services.do_run_timing_job(str(job.id), "w1") == "done"
    job.refresh_from_db()
    result = job.result
    assert result["problem"] == "sum" and result["reference_timing"] == "interleaved"
    programs = result["programs"]
    assert set(programs) == {"accepted/fast.py", "accepted/middle.py", "accepted/slow.py"}
    for entry in programs.values():
        assert len(entry["percentiles"]) == 2 and None not in entry["percentiles"]
        assert entry["jitter"] == max(entry["percentiles"]) - min(entry["percentiles"])
    # the sum package's references are 2x and more apart: their order never changes
    assert (
        programs["accepted/fast.py"]["percentiles"][0]
        < 50
        < (programs["accepted/slow.py"]["percentiles"][0])
    )
    jitters = [e["jitter"] for e in programs.values()]
    assert min(jitters) <= result["modes"]["cpu"]["jitter"] <= max(jitters)  # their p95
    assert all(band >= DEFAULT_TIE_BAND for band in result["tie_bands"])


def test_the_timing_page_offers_rank_checks_of_built_problems_and_lists_them(
    built, alice, enqueued
):
    client = Client()
    client.force_login(alice)
    page = client.get("/timing/").content.decode()
    assert 'id="rank-check-form"' in page and "<option >sum</option>" in page.replace(
        "<option selected>", "<option >"
    )
    response = client.post(
        "/timing/",
        {"kind": "rank_check", "language": "python", "modes": "cpu", "repeats": "5",
         "remeasure": "3", "problem": "sum", "reward_config": "binary-top30"},
    )  # fmt: skip
    assert response.status_code == 302
    job = TimingJob.objects.get()
    assert (job.kind, job.problem, job.remeasure) == ("rank_check", "sum", 3)
    rows = client.get("/timing/data.json").json()["jobs"]
    assert rows[0]["kind"] == "rank_check" and rows[0]["package"] == "sum"


def test_without_a_built_problem_the_page_says_where_to_build_one(alice):
    client = Client()
    client.force_login(alice)
    page = client.get("/timing/").content.decode()
    assert 'id="rank-check-none"' in page and 'href="/dataset/"' in page
