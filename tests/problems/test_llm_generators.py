"""Generators written by a model, against a chat-completions server on loopback: valid
replies become proposals with their provenance, the prompt holds the statement, the limits
and the samples but no solution, the N asks differ, a reply without code or with code that
does not compile is asked again and then named, 500s are retried, a slow request times out
alone, an unreachable endpoint gives N errors, a hostile program is returned unrun, and the
settings fall back from the judge's."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

from problems.generators.llm import (
    AIMS,
    PROMPT_VERSION,
    GeneratorLLMSettings,
    build_messages,
    parse_reply,
    prompt_sha256,
    propose_generators,
)
from tests.llm_server import ChatServer

PACK = Path(__file__).resolve().parents[2] / "problems/packs/core/count-inversions"
STATEMENT = (PACK / "problem_statement/problem.en.md").read_text()
SAMPLES = [path.read_text() for path in sorted((PACK / "data/sample").glob("*.in"))]
SOLUTIONS = [path.read_text() for path in sorted((PACK / "submissions").rglob("*.*"))]

GOOD = (
    "import random\n"
    "import sys\n"
    "\n"
    "seed, size = int(sys.argv[1]), max(1, min(100, int(sys.argv[2])))\n"
    "rng = random.Random(seed)\n"
    "n = max(1, 8000 * size // 100)\n"
    "print(n)\n"
    'print(" ".join(str(rng.randint(-10**9, 10**9)) for _ in range(n)))\n'
)


def fenced(code: str) -> str:
    return f"Here is the generator.\n\n```python\n{code}```\n\nRun it as `python3 gen.py 1 100`."


@pytest.fixture
def server():
    chat = ChatServer()
    chat.default = ("reply", fenced(GOOD))
    yield chat
    chat.close()


def settings_for(url: str, **changes) -> GeneratorLLMSettings:
    fields = dict(base_url=url, model="gpt-oss-120b", timeout_s=5.0, max_retries=2, count=3)
    return GeneratorLLMSettings(**{**fields, **changes})


def propose(settings: GeneratorLLMSettings, count: int | None = None):
    return propose_generators(
        "count-inversions", STATEMENT, 4.0, 1024, SAMPLES, settings, count=count
    )


def user_prompt(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def index_of(request: dict) -> int:
    """The k of "generator k of N" in a request's first question."""
    return int(user_prompt(request).split("This is generator ", 1)[1].split(" ", 1)[0])


def test_valid_replies_become_proposals_with_their_provenance(server):
    server.default = ("sleep", 0.2, fenced(GOOD))
    proposals = propose(settings_for(server.url, concurrency=2, count=4))
    assert [p.name for p in proposals] == ["llm-1", "llm-2", "llm-3", "llm-4"]
    assert all(p.source == "llm" and p.code == GOOD and p.error == "" for p in proposals)
    assert server.most_in_flight == 2
    first = proposals[0].provenance
    assert first["model"] == "gpt-oss-120b" and first["prompt_version"] == PROMPT_VERSION
    assert (first["attempts"], first["input_tokens"], first["output_tokens"]) == (1, 100, 20)
    assert first["reply"] == fenced(GOOD) and first["latency_s"] >= 0.2
    sent = {index_of(r): r for r in server.requests}
    for k, proposal in enumerate(proposals, 1):
        expected = build_messages(STATEMENT, 4.0, 1024, SAMPLES, k, 4)
        assert sent[k]["messages"] == expected and sent[k]["temperature"] == 0
        assert proposal.provenance["prompt_sha256"] == prompt_sha256(expected)
        assert proposal.provenance["aim"] == AIMS[k - 1][0]


def test_the_prompt_holds_the_statement_limits_and_samples_and_no_solution():
    messages = build_messages(STATEMENT, 4.0, 1024, SAMPLES, 1, 10)
    text = "\n".join(message["content"] for message in messages)
    prompt = messages[1]["content"]
    assert STATEMENT.strip() in prompt
    assert "time limit 4 s per test" in prompt and "memory limit 1024 MB" in prompt
    for sample in SAMPLES:
        assert f"```\n{sample.strip()}\n```" in prompt
    assert "python3 gen.py SEED SIZE" in prompt and "random.Random(SEED)" in prompt
    # the solutions' own lines (those not also in the statement) are nowhere in the prompt
    lines = {line.strip() for code in SOLUTIONS for line in code.splitlines()}
    distinctive = {line for line in lines if len(line) > 20 and line not in STATEMENT}
    assert len(distinctive) > 20
    assert [line for line in distinctive if line in text] == []


def test_samples_are_cut_to_three_and_a_long_one_is_shortened():
    long_sample = "100000\n" + " ".join(["123456789"] * 100_000) + "\n"
    samples = [long_sample, "1\n5\n", "2\n1 2\n", "3\n3 2 1\n"]
    prompt = build_messages(STATEMENT, 4.0, None, samples, 1, 1)[1]["content"]
    assert "Sample input 3" in prompt and "Sample input 4" not in prompt
    assert "3\n3 2 1" not in prompt and "memory limit not given" in prompt
    assert "(cut: the whole sample has 2 lines, 1,000,007 characters)" in prompt
    assert len(prompt) < len(STATEMENT) + 6000
    no_samples = build_messages("Sum.", None, None, [], 1, 1)[1]["content"]
    assert "No sample input is given." in no_samples and "time limit not given" in no_samples


def test_the_n_asks_differ_each_with_its_own_aim(server):
    prompts = [build_messages(STATEMENT, 4.0, 1024, SAMPLES, k, 10) for k in range(1, 11)]
    assert len({json.dumps(p) for p in prompts}) == 10
    for k, messages in enumerate(prompts, 1):
        assert f"This is generator {k} of 10;" in messages[1]["content"]
        assert f"({AIMS[k - 1][0]})" in messages[1]["content"]
    assert len({name for name, _ in AIMS}) == len(AIMS) == 10
    twelve = [build_messages(STATEMENT, 4.0, 1024, SAMPLES, k, 12)[1]["content"] for k in (1, 11)]
    assert "another generator has this aim too" in twelve[1]
    assert "another generator has this aim too" not in twelve[0]
    with pytest.raises(ValueError, match="index: 0 is not within 1..3"):
        build_messages(STATEMENT, 4.0, 1024, SAMPLES, 0, 3)
    propose(settings_for(server.url), count=5)  # count overrides settings.count
    assert sorted(index_of(r) for r in server.requests) == [1, 2, 3, 4, 5]
    assert len({user_prompt(r) for r in server.requests}) == 5


def test_a_reply_without_code_is_asked_again_with_the_reason(server):
    server.script = [("reply", "I would use random numbers."), ("reply", fenced(GOOD))]
    [proposal] = propose(settings_for(server.url), count=1)
    assert proposal.code == GOOD and proposal.error == ""
    assert proposal.provenance["attempts"] == 2 and proposal.provenance["input_tokens"] == 200
    again = server.requests[1]["messages"]
    assert again[:2] == server.requests[0]["messages"]
    assert again[2] == {"role": "assistant", "content": "I would use random numbers."}
    assert "That reply cannot be used: the reply has no ```python block" in again[3]["content"]


def test_a_reply_that_stays_without_code_is_that_generators_error(server):
    server.script = [("reply", "Sorry, I cannot write that.")] * 2
    [proposal] = propose(settings_for(server.url, invalid_retries=1), count=1)
    assert proposal.code == "" and proposal.provenance["attempts"] == 2
    assert proposal.error.startswith("invalid reply: the reply has no ```python block and is")
    assert proposal.provenance["reply"] == "Sorry, I cannot write that."


def test_code_that_does_not_compile_is_named_with_its_line(server):
    broken = "import sys\nseed = int(sys.argv[1]\nprint(seed)\n"
    server.respond = lambda body: ("reply", fenced(broken if index_of(body) == 1 else GOOD))
    proposals = propose(settings_for(server.url, invalid_retries=2), count=2)
    bad = [p for p in proposals if p.error]
    assert len(bad) == 1 and bad[0].code == "" and bad[0].provenance["attempts"] == 3
    assert bad[0].error.startswith("invalid reply: the program does not compile: '(' was never")
    assert bad[0].error.endswith("(line 2)")
    assert [p.code for p in proposals if not p.error] == [GOOD]  # the other went on


def test_a_500_is_retried_by_the_client(server):
    server.script = [("status", 500), ("status", 503), ("reply", fenced(GOOD))]
    [proposal] = propose(settings_for(server.url, max_retries=2), count=1)
    assert proposal.code == GOOD and proposal.error == "" and len(server.requests) == 3
    assert proposal.provenance["attempts"] == 1  # the client's own retries are not re-asks
    server.script = [("status", 500)] * 2
    [lasting] = propose(settings_for(server.url, max_retries=1), count=1)
    assert lasting.code == "" and lasting.error.startswith("InternalServerError")


def test_a_slow_request_times_out_alone(server):
    def respond(body):
        return ("sleep", 3.0, fenced(GOOD)) if index_of(body) == 2 else ("reply", fenced(GOOD))

    server.respond = respond
    started = time.monotonic()
    proposals = propose(settings_for(server.url, timeout_s=0.5, max_retries=0, count=3))
    assert time.monotonic() - started < 2.5
    assert [bool(p.error) for p in proposals] == [False, True, False]
    assert proposals[1].error.startswith("APITimeoutError") and proposals[1].code == ""
    assert proposals[1].provenance["attempts"] == 1 and proposals[1].provenance["reply"] == ""
    assert proposals[0].code == proposals[2].code == GOOD


def test_an_answer_that_is_not_a_chat_completion_is_that_generators_error(server):
    server.script = [("raw", 200, "text/html", "<html>proxy login</html>")]
    [proposal] = propose(settings_for(server.url, max_retries=0), count=1)
    assert proposal.code == "" and proposal.error.startswith("MalformedAnswer: not a chat")
    server.script = [("raw", 200, "application/json", "{cut off")]
    [proposal] = propose(settings_for(server.url, max_retries=0), count=1)
    assert proposal.error.startswith("MalformedAnswer: the answer is not JSON")


def test_an_unreachable_endpoint_gives_n_proposals_with_the_error():
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = settings_for(f"http://127.0.0.1:{port}/v1", max_retries=0, count=4)
    proposals = propose(settings)
    assert [p.name for p in proposals] == ["llm-1", "llm-2", "llm-3", "llm-4"]
    assert all(p.code == "" and p.error.startswith("APIConnectionError") for p in proposals)


def test_a_hostile_program_is_returned_as_code_and_never_run(server, tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    hostile = (
        "import os\nimport sys\n"
        f"open({str(marker)!r}, 'w').write(sys.argv[1])\n"
        "while True:\n    os.fork()\n"
    )
    calls = []

    def refuse():  # stands in for os.fork, should the program ever run in this process
        calls.append("fork")
        raise RuntimeError("fork called")

    monkeypatch.setattr(os, "fork", refuse)
    server.script = [("reply", fenced(hostile))]
    [proposal] = propose(settings_for(server.url), count=1)
    assert proposal.code == hostile and proposal.error == ""
    assert parse_reply(fenced(hostile)) == hostile
    assert not marker.exists() and calls == []


@pytest.mark.parametrize(
    "reply, expected",
    [
        (fenced(GOOD), GOOD),
        (f"```\n{GOOD}```", GOOD),  # an untagged block
        (GOOD, GOOD),  # the whole reply is the program
        (f"```py\n{GOOD}", GOOD),  # a reply cut off before its closing fence
        ("```python\nimport sys\n```\nor in full:\n" + fenced(GOOD), GOOD),  # the usable one
        (fenced(GOOD) + "\n```text\n5\n1 2 3 4 5\n```\n", GOOD),  # a sample output block
        (
            "```python\nfrom sys import argv\nprint(argv[1])\n```",
            "from sys import argv\nprint(argv[1])\n",
        ),
    ],
)
def test_the_program_is_taken_from_its_block(reply, expected):
    assert parse_reply(reply) == expected


@pytest.mark.parametrize(
    "reply, message",
    [
        ("", "the reply is empty"),
        ("I am not able to help with that.", "no ```python block and is not a program: the"),
        ("```text\n5\n1 2 3\n```", "the reply has no ```python block"),
        (fenced("def f(:\n    pass\nimport sys\n"), "does not compile: invalid syntax \\(line 1"),
        (fenced("return sys.argv\n"), "does not compile: 'return' outside function"),
        (fenced("import random\nprint(random.randint(1, 9))\n"), "does not read SEED and SIZE"),
    ],
)
def test_an_unusable_reply_is_named(reply, message):
    with pytest.raises(ValueError, match=message):
        parse_reply(reply)


JUDGE = {"JUDGE_LLM_BASE_URL": "http://judge:8000/v1", "JUDGE_LLM_MODEL": "judge-model"}


def test_settings_fall_back_to_the_judges_and_a_bad_value_is_named():
    assert GeneratorLLMSettings.from_env({}) is None
    judge_only = GeneratorLLMSettings.from_env(
        {**JUDGE, "JUDGE_LLM_API_KEY": "k", "JUDGE_LLM_TIMEOUT_S": "60",
         "JUDGE_LLM_CONCURRENCY": "8", "JUDGE_LLM_MAX_RETRIES": "1"}
    )  # fmt: skip
    assert (judge_only.base_url, judge_only.model, judge_only.api_key) == (
        "http://judge:8000/v1", "judge-model", "k",
    )  # fmt: skip
    assert (judge_only.timeout_s, judge_only.concurrency, judge_only.max_retries) == (60, 8, 1)
    assert judge_only.count == 10 and judge_only.invalid_retries == 2
    own = GeneratorLLMSettings.from_env(
        {**JUDGE, "JUDGE_LLM_TIMEOUT_S": "60", "GENERATOR_LLM_BASE_URL": "http://gen/v1",
         "GENERATOR_LLM_MODEL": "coder", "GENERATOR_LLM_TIMEOUT_S": "600",
         "GENERATOR_LLM_COUNT": "4", "GENERATOR_LLM_CONCURRENCY": " "}
    )  # fmt: skip
    assert (own.base_url, own.model, own.timeout_s, own.count) == ("http://gen/v1", "coder", 600, 4)
    assert own.concurrency == 4 and own.api_key == "none"  # blank is unset: the default
    assert GeneratorLLMSettings.from_env(JUDGE).timeout_s == 300.0  # its own default

    def error(environ: dict) -> str:
        with pytest.raises(ValueError) as caught:
            GeneratorLLMSettings.from_env(environ)
        return str(caught.value)

    assert error({**JUDGE, "GENERATOR_LLM_TIMEOUT_S": "soon"}) == (
        "GENERATOR_LLM_TIMEOUT_S: 'soon' is not a number"
    )
    assert error({**JUDGE, "JUDGE_LLM_TIMEOUT_S": "-1"}) == "JUDGE_LLM_TIMEOUT_S: must be >= 0"
    assert error({**JUDGE, "GENERATOR_LLM_COUNT": "0"}) == "GENERATOR_LLM_COUNT: must be >= 1"
    assert error({"GENERATOR_LLM_BASE_URL": "http://gen/v1"}) == (
        "GENERATOR_LLM_MODEL (or JUDGE_LLM_MODEL): required when GENERATOR_LLM_BASE_URL is set"
    )
