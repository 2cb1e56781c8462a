"""Proposed generators through a stored dataset build (issue 19): a problem without
hand-written generators gets its optimization tests from an injected proposer's valid
generator; every proposal is stored with its validation, counted per source in the build's
funnel and shown on the problem and dataset pages; a later build replaces a source's
proposals and a re-import keeps them."""

from __future__ import annotations

import pytest

from execution.samples import write_sum_package
from problems import services
from problems.generators import Proposal, Refusal
from problems.models import DatasetBuild, InputGenerator, Problem, ProblemBuild
from problems.pipeline import Proposer
from tests.pipeline_problems import CRASHING_GEN, FAST_CONFIG, MIDDLE, RANDOM_GEN

pytestmark = pytest.mark.django_db(transaction=True)

PROVENANCE = {"model": "fake-model", "prompt_version": "generators-v1", "attempts": 1}
FAKE_LLM = Proposer(
    "llm",
    lambda problem: [
        Proposal("llm-1", "llm", RANDOM_GEN, provenance=PROVENANCE),
        Proposal("llm-2", "llm", CRASHING_GEN, provenance=PROVENANCE),
    ],
)
FAKE_INFERRED = Proposer("inferred", lambda problem: [Refusal("no layout read")])


def import_sum_without_generators(tmp_path) -> Problem:
    root = write_sum_package(tmp_path / "sum")
    (root / "submissions" / "accepted" / "middle.py").write_text(MIDDLE)
    services.do_import_packages(root)
    return Problem.objects.get(slug="sum")


def run_build(proposers: list[Proposer]) -> DatasetBuild:
    config, slugs = services.check_build_request(FAST_CONFIG.as_dict(), ["sum"])
    build = DatasetBuild.objects.create(config=config.as_dict(), problem_slugs=slugs)
    return services.do_run_build(build.pk, proposers=proposers)


def test_a_proposed_generator_grows_the_tests_of_a_problem_without_hand_written_ones(
    tmp_path, client, alice
):
    problem = import_sum_without_generators(tmp_path)
    build = run_build([FAKE_INFERRED, FAKE_LLM])
    result = ProblemBuild.objects.get(build=build, problem=problem)
    assert result.stage_reached >= 3, result.reason
    generators = result.report["generators"]
    assert {name: (g["source"], g["valid"]) for name, g in generators.items()} == {
        "inferred": ("inferred", False),
        "llm-1": ("llm", True),
        "llm-2": ("llm", False),
    }
    assert generators["inferred"]["reasons"] == ["runs: refused: no layout read"]
    assert "generator failed (exit 1): no input for you" in generators["llm-2"]["reasons"][0]
    optimization = problem.tests.select_related("generator").get(kind="optimization")
    assert (optimization.generator.name, optimization.generator.source) == ("llm-1", "llm")
    services.materialize_test(optimization, tmp_path)  # made again from the stored generator

    # stored: valid and rejected, with provenance, report and a small sample input
    rows = {g.name: g for g in InputGenerator.objects.filter(problem=problem)}
    assert {n: (g.source, g.valid) for n, g in rows.items()} == {
        n: (g["source"], g["valid"]) for n, g in generators.items()
    }
    assert rows["llm-1"].provenance == PROVENANCE
    assert [c["passed"] for c in rows["llm-1"].report["checks"]] == [True] * 6
    assert rows["llm-1"].sample_input.startswith("16000\n")  # RANDOM_GEN at SIZE 8
    assert "(truncated: " in rows["llm-1"].sample_input

    # the funnel per source, on the build and in its API answer
    sources = build.generator_funnel["sources"]
    assert {s: (r["proposed"], r["valid"]) for s, r in sources.items()} == {
        "hand": (0, 0),
        "inferred": (1, 0),
        "llm": (2, 1),
    }
    assert sources["llm"]["stages"]["optimization tests"] == 1
    assert sources["llm"]["alone"]["optimization tests"] == 1
    assert sources["inferred"]["stages"]["optimization tests"] == 0
    client.force_login(alice)
    (row,) = client.get("/dataset/builds.json").json()["builds"]
    assert row["generator_funnel"] == build.generator_funnel

    page = client.get("/problems/sum/").content.decode()
    assert 'id="generators"' in page and "fake-model" in page and "generators-v1" in page
    assert "grows with SIZE: pass" in page and "rejected" in page
    assert "runs: refused: no layout read" in page
    assert '<pre class="sample-input">16000\n' in page
    dataset = client.get(f"/dataset/?build={build.pk}").content.decode()
    assert 'id="generator-funnel"' in dataset
    assert '<tr><td>llm</td><td class="num">2</td><td class="num">1</td>' in dataset

    # another build with the LLM source only: its proposals replace the LLM's, the
    # inferred one (not asked this time) stays; a re-import keeps both
    run_build([Proposer("llm", lambda p: [Proposal("llm-9", "llm", RANDOM_GEN)])])
    names = set(problem.generators.values_list("name", "source"))
    assert names == {("inferred", "inferred"), ("llm-9", "llm")}
    services.do_import_packages(tmp_path / "sum")
    assert set(problem.generators.values_list("name", "source")) == names
    assert problem.tests.get(kind="optimization").generator.name == "llm-9"


NON_DETERMINISTIC_GEN = RANDOM_GEN.replace("rng = random.Random(seed)", "rng = random.Random()")


def test_a_build_asks_the_configured_model_and_keeps_only_what_validates(tmp_path, monkeypatch):
    """The LLM source as a build uses it (no proposer injected): problems/generators/llm.py
    asks the endpoint named by GENERATOR_LLM_*, here a chat-completions server on loopback
    scripted per generator; a valid, a non-deterministic, a hostile, a broken and a slow
    reply."""
    from tests.llm_server import ChatServer

    fenced = "Here it is:\n```python\n{}```\n"
    replies = {
        1: ("reply", fenced.format(RANDOM_GEN)),
        2: ("reply", fenced.format(NON_DETERMINISTIC_GEN)),
        3: ("reply", fenced.format("import os, sys\nwhile True:\n    os.fork()\n")),
        4: ("reply", "I cannot write that generator."),
        5: ("sleep", 3.0, fenced.format(RANDOM_GEN)),
    }
    chat = ChatServer()

    def respond(body):
        text = body["messages"][-1]["content"]
        index = next(k for k in replies if f"generator {k} of 5" in text)
        return replies[index]

    chat.respond = respond
    monkeypatch.setenv("GENERATOR_LLM_BASE_URL", chat.url)
    monkeypatch.setenv("GENERATOR_LLM_MODEL", "loopback-coder")
    monkeypatch.setenv("GENERATOR_LLM_COUNT", "5")
    monkeypatch.setenv("GENERATOR_LLM_TIMEOUT_S", "1")
    monkeypatch.setenv("GENERATOR_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("GENERATOR_LLM_INVALID_RETRIES", "0")
    problem = import_sum_without_generators(tmp_path)
    try:
        data = {**FAST_CONFIG.as_dict(), "llm_generators": True}
        config, slugs = services.check_build_request(data, ["sum"])
        build = DatasetBuild.objects.create(config=config.as_dict(), problem_slugs=slugs)
        build = services.do_run_build(build.pk)
    finally:
        chat.close()
    result = ProblemBuild.objects.get(build=build, problem=problem)
    assert result.stage_reached >= 3, result.reason
    rows = {g.name: g for g in InputGenerator.objects.filter(problem=problem, source="llm")}
    assert {name: row.valid for name, row in rows.items()} == {
        "llm-1": True, "llm-2": False, "llm-3": False, "llm-4": False, "llm-5": False
    }  # fmt: skip
    reasons = {name: " ".join(row.report["reasons"]) for name, row in rows.items()}
    assert reasons["llm-2"].startswith("deterministic:")
    assert reasons["llm-3"].startswith("runs:")  # the sandbox stopped the fork bomb
    assert "no code" in reasons["llm-4"] or "does not compile" in reasons["llm-4"]
    assert "timed out" in reasons["llm-5"].lower() or "timeout" in reasons["llm-5"].lower()
    assert rows["llm-1"].provenance["model"] == "loopback-coder"
    assert rows["llm-1"].provenance["prompt_version"] == "generator-v2"
    assert RANDOM_GEN.strip() in rows["llm-1"].provenance["reply"]
    # blind to the solutions: no reference's code in any prompt
    prompts = " ".join(m["content"] for r in chat.requests for m in r["messages"])
    assert MIDDLE.strip() not in prompts
    optimization = problem.tests.select_related("generator").get(kind="optimization")
    assert optimization.generator.name == "llm-1"
