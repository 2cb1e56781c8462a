"""The LLM judge against a chat-completions server on loopback: valid replies, invalid JSON
(re-asked, then a judge error), 429 and 500 answers (retried with backoff), timeouts, the
concurrency limit, the blind prompt and the settings from the environment."""

from __future__ import annotations

import json
import time

import pytest

from judges.categories import CATEGORIES
from judges.llm import (
    VERDICT_SCHEMA,
    LLMJudge,
    LLMSettings,
    PairText,
    build_messages,
    parse_reply,
)
from tests.llm_server import ChatServer, reply

SLOW = "n = int(input())\nprint(sum(int(input()) for _ in range(n)))\n"
FAST = "import sys\nd = sys.stdin.buffer.read().split()\nprint(sum(map(int, d[1:])))\n"
PAIR = PairText("Sum n numbers.", SLOW, FAST, baseline_s=0.40, optimized_s=0.10)


@pytest.fixture
def server():
    chat = ChatServer()
    yield chat
    chat.close()


def judge(server, **changes) -> LLMJudge:
    settings = dict(
        base_url=server.url, model="gpt-oss-120b", timeout_s=5.0, max_retries=2,
        price_input_per_mtok=0.5, price_output_per_mtok=2.0,
    )  # fmt: skip
    return LLMJudge(LLMSettings(**{**settings, **changes}))


def test_a_valid_reply_is_validated_and_costed(server):
    server.script = [("reply", reply("io"))]
    result = judge(server).judge(PAIR)
    assert (result.category, result.secondary, result.confidence) == ("io", None, 0.8)
    assert result.error == "" and result.attempts == 1 and result.latency_s > 0
    assert (result.input_tokens, result.output_tokens) == (100, 20)
    assert result.cost == pytest.approx((100 * 0.5 + 20 * 2.0) / 1e6)
    sent = server.requests[0]
    assert sent["model"] == "gpt-oss-120b" and sent["response_format"] == {"type": "json_object"}
    # the judge said "B" is faster: right exactly when the optimized program was shown as B
    assert result.found_faster == (result.baseline_shown_as == "A")


def test_an_invalid_reply_is_asked_again_then_recorded_as_unclear_with_its_words(server):
    server.script = [("reply", "the answer is io"), ("reply", reply("constant_factor"))]
    result = judge(server).judge(PAIR)
    assert result.category == "constant_factor" and result.attempts == 2 and result.error == ""
    server.script = [("reply", "nope")] * 3 + [("reply", reply("bogus"))]
    result = judge(server, invalid_retries=2).judge(PAIR)
    # the model answered three times, never validly: an abstention, not an endpoint error
    assert result.category == "unclear" and result.attempts == 3 and result.error == ""
    assert result.rationale == (
        "no valid answer after 3 tries (invalid reply: reply is not JSON (Expecting value))"
    )
    assert result.raw == ["nope"] * 3
    assert result.input_tokens == 300  # every attempt is paid for


def test_429_and_500_are_retried_with_backoff_and_a_lasting_500_is_an_error(server):
    server.script = [("status", 429), ("status", 500), ("reply", reply("algorithmic"))]
    result = judge(server, max_retries=2).judge(PAIR)
    assert result.category == "algorithmic" and len(server.requests) == 3
    server.requests.clear()
    server.script = [("status", 500)] * 3
    result = judge(server, max_retries=2).judge(PAIR)
    assert result.category is None and result.error.startswith("InternalServerError")
    assert len(server.requests) == 3  # the first try and two retries


def test_a_timeout_is_an_error_for_that_pair_only(server):
    server.script = [("sleep", 2.0, reply())]
    result = judge(server, timeout_s=0.3, max_retries=0).judge(PAIR)
    assert result.category is None and result.error.startswith("APITimeoutError")
    assert result.latency_s < 1.5


def test_an_answer_that_is_not_a_chat_completion_is_an_error_for_that_pair_only(server):
    server.script = [("raw", 200, "text/html", "<html>proxy login</html>")]
    result = judge(server, max_retries=0).judge(PAIR)
    assert result.category is None and result.error.startswith("MalformedAnswer: not a chat")
    server.script = [("reply", reply("io"))]
    assert judge(server).judge(PAIR).category == "io"


def test_many_pairs_keep_to_the_concurrency_limit(server):
    server.default = ("sleep", 0.3, reply("io"))
    pairs = [PairText(f"problem {i}", SLOW, FAST) for i in range(6)]
    started = time.monotonic()
    results = judge(server, concurrency=2).judge_many(pairs)
    elapsed = time.monotonic() - started
    assert [r.category for r in results] == ["io"] * 6
    assert server.most_in_flight == 2 and 0.85 < elapsed < 2.5  # 3 rounds of 0.3 s


def test_the_prompt_is_blind_and_its_order_drawn_per_pair():
    orders = set()
    for i in range(12):
        pair = PairText(f"statement {i}", SLOW, FAST, 0.4, 0.1)
        for first in (True, False):
            text = json.dumps(build_messages(pair, first))
            assert "baseline" not in text.lower() and "optimized" not in text.lower()
            assert text.index("Program A") < text.index("Program B")
            shown_first = text.index(SLOW.splitlines()[0]) < text.index(FAST.splitlines()[0])
            orders.add(shown_first == first)
    assert orders == {True}
    assert PAIR.content_key("m") == PairText(*PAIR.__dict__.values()).content_key("m")
    assert PAIR.content_key("m") != PAIR.content_key("other-model")


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"category": "fast"}', "category: 'fast' is not one of"),
        ('{"category": "io", "rationale": "x", "confidence": 2}', "confidence: not between"),
        ('{"category": "io", "confidence": 0.5}', "rationale: missing"),
        ('["io"]', "reply is not a JSON object"),
        ('{"category": "io", "rationale": "x", "confidence": 1, "faster": "C"}', "faster: 'C'"),
    ],
)
def test_a_reply_is_validated_field_by_field(text, message):
    with pytest.raises(ValueError, match=message):
        parse_reply(text)
    assert parse_reply("```json\n" + reply("none") + "\n```")["category"] == "none"


def test_settings_come_from_the_environment():
    assert LLMSettings.from_env({}) is None
    with pytest.raises(ValueError, match="JUDGE_LLM_MODEL: required"):
        LLMSettings.from_env({"JUDGE_LLM_BASE_URL": "http://x/v1"})
    with pytest.raises(ValueError, match="JUDGE_LLM_CONCURRENCY: 'many' is not a whole number"):
        LLMSettings.from_env(
            {"JUDGE_LLM_BASE_URL": "http://x/v1", "JUDGE_LLM_MODEL": "m",
             "JUDGE_LLM_CONCURRENCY": "many"}
        )  # fmt: skip
    settings = LLMSettings.from_env(
        {"JUDGE_LLM_BASE_URL": "http://x/v1", "JUDGE_LLM_MODEL": "m", "JUDGE_LLM_TIMEOUT_S": "9"}
    )
    assert (settings.model, settings.timeout_s, settings.api_key) == ("m", 9.0, "none")


@pytest.mark.parametrize(
    ("shape", "sent"),
    [
        ("json_object", {"type": "json_object"}),
        ("json_object_schema", {"type": "json_object", "schema": VERDICT_SCHEMA}),
        ("json_schema", {"type": "json_schema", "json_schema": {
            "name": "verdict", "schema": VERDICT_SCHEMA, "strict": True}}),
        ("none", None),
    ],
)  # fmt: skip
def test_the_reply_shape_is_asked_the_way_the_server_takes_it(server, shape, sent):
    server.script = [("reply", reply("io"))]
    assert judge(server, response_format=shape, max_tokens=64).judge(PAIR).category == "io"
    assert server.requests[-1].get("response_format") == sent
    assert server.requests[-1]["max_tokens"] == 64
    assert set(VERDICT_SCHEMA["properties"]["category"]["enum"]) == set(CATEGORIES)


def test_a_reply_shape_the_judge_does_not_know_is_named_by_its_variable():
    environ = {"JUDGE_LLM_BASE_URL": "http://x/v1", "JUDGE_LLM_MODEL": "m"}
    with pytest.raises(ValueError, match="JUDGE_LLM_RESPONSE_FORMAT: 'xml' is not one of"):
        LLMSettings.from_env({**environ, "JUDGE_LLM_RESPONSE_FORMAT": "xml"})
    with pytest.raises(ValueError, match="JUDGE_LLM_MAX_TOKENS: must be >= 1"):
        LLMSettings.from_env({**environ, "JUDGE_LLM_MAX_TOKENS": "0"})
    assert LLMSettings.from_env(environ).max_tokens is None
