"""Problem-set pages: list filters, problem page, dataset builds from the UI, calibration."""

from __future__ import annotations

import json

import pytest

from problems.models import Calibration, DatasetBuild, Problem, ProblemTest
from tests.problems.test_dataset_build import import_sum, run_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_alice(client, alice):
    client.force_login(alice)
    return client


def make_problem(slug: str, **fields) -> Problem:
    defaults = dict(title=slug.title(), source="codeopt core pack", tags=["io"])
    return Problem.objects.create(slug=slug, **{**defaults, **fields})


def slugs_of(response) -> list[str]:
    return [p.slug for p in response.context["problems"]]


def test_the_problem_list_filters_by_split_source_tag_and_discrimination(client_alice):
    make_problem("a", split="train", discrimination=8.0, tags=["io", "algorithmic"])
    make_problem("b", split="test", discrimination=1.5)
    make_problem("c", source="code_contests/codeforces", tags=["math"])
    assert slugs_of(client_alice.get("/problems/")) == ["a", "b", "c"]
    assert slugs_of(client_alice.get("/problems/?split=test")) == ["b"]
    assert slugs_of(client_alice.get("/problems/?source=code_contests/codeforces")) == ["c"]
    assert slugs_of(client_alice.get("/problems/?tag=algorithmic")) == ["a"]
    assert slugs_of(client_alice.get("/problems/?min_ratio=2")) == ["a"]
    assert slugs_of(client_alice.get("/problems/?q=B")) == ["b"]


def test_a_bad_filter_is_named_and_nothing_is_hidden_by_it(client_alice):
    make_problem("a")
    response = client_alice.get("/problems/?min_ratio=lots")
    assert response.context["error"] == "min_ratio: 'lots' is not a number"
    assert slugs_of(response) == ["a"]
    response = client_alice.get("/problems/?split=nope")
    assert response.context["error"].startswith("split: 'nope' is not one of train")
    assert 'id="filter-error"' in response.content.decode()


def test_the_pages_need_a_login(client):
    for url in ("/problems/", "/dataset/", "/dataset/calibration/", "/dataset/builds.json"):
        assert client.get(url).status_code == 302


def test_a_statement_is_rendered_as_markdown_and_its_html_is_not_run(client_alice):
    make_problem("x", statement="# Title\n\nSum **all** of them <script>alert(1)</script>")
    html = client_alice.get("/problems/x/").content.decode()
    assert "<h1>Title</h1>" in html and "<strong>all</strong>" in html
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


def test_a_statements_math_is_drawn_as_mathml_and_cannot_carry_markup(client_alice):
    make_problem(
        "m",
        statement="Given $1 \\le n \\le 2\\cdot10^5$ and\n\n$$\\frac{a}{b}$$\n\n"
        "then $\\text{<img src=x onerror=alert(1)>}$ and $\\text{<script>x()</script>}$",
    )
    html = client_alice.get("/problems/m/").content.decode()
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert "<mo>≤</mo>" in html and "<msup><mn>10</mn><mn>5</mn></msup>" in html
    assert 'display="block"><mrow><mfrac>' in html
    assert "\\le" not in html  # no raw TeX left
    assert "<img" not in html and "<script>x()" not in html and "onerror" not in html


@pytest.mark.django_db(transaction=True)
def test_the_problem_page_shows_measured_runtimes_and_the_consensus_report(tmp_path, client, alice):
    client.force_login(alice)
    import_sum(tmp_path)
    run_build(["sum"])
    response = client.get("/problems/sum/")
    html = response.content.decode()
    runtimes = response.context["runtimes"]
    labels = {(p["solution"], p["label"], p["verdict"]) for p in runtimes["points"]}
    assert ("accepted/slow.py", "accepted", "OK") in labels
    assert ("wrong_answer/off.py", "wrong", "WRONG_ANSWER") in labels
    measured = {p["cost_ms"] for p in runtimes["points"] if p["label"] == "accepted"}
    assert all(cost > 5 for cost in measured)  # real CPU times in ms
    assert runtimes["cap_ms"] == pytest.approx(2.5 * 0.6 * 1000)
    assert json.loads(json.dumps(runtimes)) == runtimes  # what json_script embeds
    assert "Wrong references caught: 1 of 1." in html
    assert 'id="consensus"' in html and "gen/random/c0-s2" in html
    assert "regenerated (sha256" in html


def test_a_build_started_from_the_page_is_queued_with_its_settings(
    client_alice, django_capture_on_commit_callbacks, enqueued
):
    make_problem("a")
    form = {
        "problems": "a",
        "slow_target_s": "0.4",
        "repeats": "4",
        "generator_candidates": "2",
        "min_ratio": "3",
        "min_rank_stability": "0.7",
        "test_fraction": "0.2",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client_alice.post("/dataset/", form)
    assert response.status_code == 302
    build = DatasetBuild.objects.get()
    assert enqueued == [("problems.run_dataset_build", [build.pk], None)]
    assert build.started_by == "alice"
    assert build.problem_slugs == ["a"]
    assert build.config["slow_target_s"] == 0.4 and build.config["repeats"] == 4
    rows = client_alice.get("/dataset/builds.json").json()["builds"]
    assert rows[0]["id"] == build.pk and rows[0]["status"] == "queued"


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("slow_target_s", "soon", "slow_target_s: &#x27;soon&#x27; is not a number"),
        ("repeats", "1", "repeats: must be in [2, 100]"),
        ("problems", "missing", "problems: no problem missing"),
    ],
)
def test_a_bad_build_setting_is_named_and_nothing_is_queued(client_alice, field, value, message):
    make_problem("a")
    response = client_alice.post("/dataset/", {"problems": "a", field: value})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not DatasetBuild.objects.exists()


def test_the_calibration_page_shows_the_fit_and_both_spearman_values(client_alice):
    old = Calibration.objects.create(
        mode="cpu", machine="m1", slope=0.9, intercept=0.0, pairs=2, points=[[1, 1, "a", "t"]]
    )
    Calibration.objects.create(
        mode="cpu",
        machine="m2",
        slope=0.63,
        intercept=0.053,
        spearman_before=0.54,
        spearman_after=0.96,
        pairs=3,
        points=[[1.0, 0.68, "a", "t"], [2.0, 1.31, "b", "t"], [3.0, 1.94, "c", "t"]],
    )
    html = client_alice.get("/dataset/calibration/").content.decode()
    assert '<b id="formula">new ≈ 0.6300·old + 0.0530</b> over 3 pairs' in html
    assert '<b id="rho-before">0.540</b>' in html and '<b id="rho-after">0.960</b>' in html
    assert f'href="?id={old.pk}"' in html  # the history
    older = client_alice.get(f"/dataset/calibration/?id={old.pk}").content.decode()
    assert "new ≈ 0.9000·old + 0.0000" in older
    assert Calibration(slope=1.0, intercept=-0.002).formula == "new ≈ 1.0000·old − 0.0020"


def test_a_regenerated_test_is_listed_without_its_input(client_alice):
    problem = make_problem("a")
    generator = problem.generators.create(name="random", code="print(1)")
    ProblemTest.objects.create(
        problem=problem,
        name="opt/random/s100-0",
        kind="optimization",
        input_gz=b"",
        answer_gz=b"",
        input_bytes=123_456,
        generator=generator,
        seed=7,
        size=100,
        regenerate=True,
        input_sha256="ab" * 32,
    )
    html = client_alice.get("/problems/a/").content.decode()
    assert (
        "random, 7, 100" in html and "123456" in html and "regenerated (sha256 abababababab" in html
    )


def test_the_problem_page_shows_each_generators_validation_and_escapes_its_sample(client_alice):
    problem = make_problem("a")
    checks = [
        {"name": "runs", "passed": True, "detail": "inputs at SIZE 8 and 100", "data": {}},
        {"name": "grows with SIZE", "passed": False, "detail": "x: 0.010 s at SIZE 8", "data": {}},
        {"name": "size cap", "passed": None, "detail": "not run", "data": {}},
    ]
    problem.generators.create(
        name="llm-1",
        code="print(1)",
        source="llm",
        valid=False,
        report={"reasons": ["grows with SIZE: x: 0.010 s at SIZE 8"], "checks": checks},
        provenance={"reply": "r" * 1000, "model": "m-7b", "prompt_version": "v2"},
        sample_input="1\n<script>alert(1)</script>\n",
    )
    problem.generators.create(name="random", code="print(2)")  # imported, never validated
    html = client_alice.get("/problems/a/").content.decode()
    assert '<pre class="sample-input">1\n&lt;script&gt;alert(1)&lt;/script&gt;\n</pre>' in html
    assert "<script>alert(1)" not in html
    assert '<span class="error">rejected</span><br>grows with SIZE: x: 0.010 s at SIZE 8' in html
    assert "<li>runs: pass (inputs at SIZE 8 and 100)</li>" in html
    assert '<li>grows with SIZE: <span class="error">fail</span>' in html
    assert "<li>size cap: not run (not run)</li>" in html
    # the model and prompt version first; a long reply cut
    assert html.index("<b>model</b>: m-7b") < html.index("<b>prompt_version</b>: v2")
    assert "r" * 300 + "… (1000 characters)" in html and "r" * 301 not in html
    assert "not validated yet" in html  # the hand-written one


def test_the_runtime_chart_of_a_problem_stopped_before_its_tests_says_where(client_alice):
    from problems import reads
    from problems.models import ProblemBuild
    from problems.pipeline import PipelineConfig

    problem = make_problem("flat")
    assert reads.runtime_points(problem)["empty"].endswith("run a dataset build")  # never built
    build = DatasetBuild.objects.create(config=PipelineConfig().as_dict())
    reason = "not time-discriminative: no input slows any reference (inferred: ...)"
    ProblemBuild.objects.create(build=build, problem=problem, stage_reached=2, reason=reason)
    empty = reads.runtime_points(problem)["empty"]
    assert empty == (
        f"build #{build.pk} made no optimization tests: it stopped at stage 3 "
        "(see the construction report)"
    )
    page = client_alice.get(f"/problems/{problem.slug}/").content.decode()
    assert json.dumps(empty) in page  # the chart's note, in its data
