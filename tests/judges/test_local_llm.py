"""The LLM callers against a real model behind a real OpenAI-compatible server: llama-cpp-python's
server (var/llm-server, `make install`) running the GGUF of smollm2-135m-instruct
(lm/local_server.py). A 135M model answers wrongly or off-schema often: every answer is
validated, a batch finishes whatever the model says, each pair with a category or `unclear`
with the model's words kept; the generator writer returns each proposal usable or with the
reason it is not. The prompt carries the pair's measured evidence."""

from __future__ import annotations

import json

import pytest

from execution.checker import CheckerSettings
from judges import reads
from judges.categories import CATEGORIES, VERDICTS
from judges.evidence import Evidence, ProgramEvidence
from judges.llm import LLMSettings, PairText, build_messages
from judges.models import Judgment
from lm import local_server
from problems.generators.llm import GeneratorLLMSettings, propose_generators
from problems.generators.validate import CHECKS, validate
from problems.pipeline.model import SourceProblem, SourceTest
from scripts.readiness import free_port
from tests.evaluations.test_evaluations import lines
from tests.judges.test_judges import FORMULA, LOOPING, batch_of
from tests.problems.test_generator_validation import CONFIG, CORRECT, WRONG

MODEL = "smollm2-135m-instruct"


@pytest.fixture(scope="module")
def local_llm(tmp_path_factory):
    log = tmp_path_factory.mktemp("llm") / "server.log"
    process, url = local_server.start(free_port(), log, threads=1)
    yield url
    process.terminate()
    process.wait(timeout=30)


def _evidence() -> Evidence:
    return Evidence(
        generator="worst.py",
        sizes=[25, 50, 100],
        baseline=ProgramEvidence([4e7, 1.6e8, 6.4e8], [1e6, 2e6, 4e6], 2.0),
        optimized=ProgramEvidence([2e6, 2e6, 2e6], [1e6, 1e6, 1e6], 0.0),
        outputs_agree=True,
    )


def test_the_prompt_carries_the_measured_evidence_in_the_prompts_own_names():
    pair = PairText("Sum 1..n.", LOOPING, FORMULA, evidence=_evidence())
    shown_first = build_messages(pair, baseline_first=True)[1]["content"]
    shown_second = build_messages(pair, baseline_first=False)[1]["content"]
    assert "| 100 | 640.0M | 4.0M | 2.0M | 1.0M |" in shown_first  # A is the baseline
    assert "| 100 | 2.0M | 1.0M | 640.0M | 4.0M |" in shown_second  # B is the baseline
    assert "exponent (log-log slope against SIZE): A 2.00, B 0.00" in shown_first
    assert "Cost ratio A/B at the largest SIZE: 320.00" in shown_first
    assert "Cost ratio A/B at the largest SIZE: 0.00" in shown_second
    assert "The ratio A/B changed 16.00x" in shown_first  # 20x → 320x
    assert "The ratio A/B changed 0.06x" in shown_second
    for text in (shown_first, shown_second):
        assert "baseline" not in text and "optimized" not in text  # blind
    keys = {
        PairText("s", LOOPING, FORMULA, evidence=e).content_key("m") for e in (None, _evidence())
    }
    assert len(keys) == 2  # a verdict given without evidence is not reused for one with it


@pytest.mark.django_db(transaction=True)
def test_a_batch_judged_by_a_real_model_finishes_with_every_answer_validated(
    local_llm, alice, monkeypatch
):
    for name, value in {
        "BASE_URL": local_llm,
        "MODEL": MODEL,
        "RESPONSE_FORMAT": "json_object_schema",  # the server turns the schema into a grammar
        "MAX_TOKENS": "160",
        "INVALID_RETRIES": "1",
        "CONCURRENCY": "1",
    }.items():
        monkeypatch.setenv(f"JUDGE_LLM_{name}", value)
    assert LLMSettings.from_env().response_format_field()["schema"]["required"]
    pairs = lines(
        {"problem": "triangle", "baseline": LOOPING, "optimized": FORMULA,
         "category": "math_shortcut"},
        {"problem": "triangle", "baseline": LOOPING, "optimized": LOOPING.replace("t", "acc")},
    )  # fmt: skip
    batch = batch_of(alice, {"judge": "llm", "measure": False}, ("pairs.jsonl", pairs))
    assert batch.status == "done"
    verdicts = list(Judgment.objects.filter(pair__batch=batch, judge="llm").order_by("pair_id"))
    assert len(verdicts) == 2
    for verdict in verdicts:
        assert verdict.error == "" and verdict.category in VERDICTS
        assert verdict.model == MODEL and verdict.input_tokens > 100 and verdict.latency_s > 0
        if verdict.category == "unclear":
            assert verdict.raw.strip(), "an abstention keeps what the model said"
        else:
            assert verdict.category in CATEGORIES and verdict.rationale.strip()
    truth = {t["judge"]: t for t in reads.against_truth(batch)}
    assert truth["llm"]["pairs"] == 1  # the labelled pair is scored, right or wrong


def test_the_generator_writer_runs_on_a_real_model_and_says_why_a_reply_is_unusable(
    local_llm, tmp_path
):
    settings = GeneratorLLMSettings.from_env(
        {
            "GENERATOR_LLM_BASE_URL": local_llm,
            "GENERATOR_LLM_MODEL": MODEL,
            "GENERATOR_LLM_MAX_TOKENS": "200",
            "GENERATOR_LLM_INVALID_RETRIES": "0",
            "GENERATOR_LLM_CONCURRENCY": "1",
        }
    )
    statement = "Read n, then n integers, one per line. Print their sum."
    proposals = propose_generators("big-sum", statement, 1.0, 256, ["2\n1\n2\n"], settings, 2)
    assert [p.name for p in proposals] == ["llm-1", "llm-2"]
    for proposal in proposals:
        assert proposal.provenance["model"] == MODEL
        assert proposal.provenance["output_tokens"] > 0 and proposal.provenance["reply"]
        assert bool(proposal.code) != bool(proposal.error), proposal  # usable, or why not
        assert proposal.provenance["grows_past_size_max"]  # asked of the model (prompt v2)
    json.dumps([p.provenance for p in proposals])  # stored as JSON with the generator
    # each one validated in the sandbox as a build validates it: valid, or the checks say why
    (tmp_path / "own.in").write_text("3\n1 2 3\n")
    (tmp_path / "own.ans").write_text("6\n")
    own = SourceTest("sample/1", "sample", tmp_path / "own.in", tmp_path / "own.ans")
    problem = SourceProblem("tiny-sum", 2.0, CheckerSettings(), [own], [])
    work = tmp_path / "work"
    work.mkdir()
    work.chmod(0o711)
    for proposal in proposals:
        report = validate(proposal, problem, CONFIG, work, CORRECT, WRONG)
        ran = [c for c in report.checks if c.passed is not None]
        assert ran and ran[0].name == "runs"
        assert report.valid or report.reasons[0].split(":")[0] in CHECKS
        if not proposal.code:
            assert report.reasons == [f"runs: {proposal.error}"]
