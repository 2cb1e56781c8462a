"""The LLM judge: any OpenAI-compatible chat-completions endpoint (a vLLM server running an
open model such as GPT-OSS-120B, or a hosted API), through the `openai` client, which
retries 429, 5xx and timeouts with exponential backoff (foundation/llm_endpoint.py, shared with the
generator writer). Plain Python, no Django.

Blind: the two programs are shown as "Program A" and "Program B" in an order drawn per pair,
with their measured times and the problem statement, never a model, run or evaluation name.
The reply must be a JSON object {category, secondary, rationale, confidence}; a reply that
is not (after `invalid_retries` re-asks) becomes a judge error for that pair only.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field

from foundation.llm_endpoint import EndpointSettings, EnvReader, ask, make_client, map_concurrently
from judges.categories import CATEGORIES, DEFINITIONS

PROMPT_VERSION = "speedup-source-v1"


@dataclass(frozen=True)
class LLMSettings(EndpointSettings):
    price_input_per_mtok: float = 0.0  # currency units per million prompt tokens
    price_output_per_mtok: float = 0.0

    @classmethod
    def from_env(cls, environ=None) -> LLMSettings | None:
        """From JUDGE_LLM_* variables; None when no endpoint is configured."""
        read = EnvReader(environ, ("JUDGE_LLM_",))
        endpoint = cls.endpoint_from_env(read)
        if endpoint is None:
            return None
        return cls(
            **endpoint,
            price_input_per_mtok=read.number("PRICE_INPUT_PER_MTOK", float, 0.0),
            price_output_per_mtok=read.number("PRICE_OUTPUT_PER_MTOK", float, 0.0),
        )


@dataclass(frozen=True)
class PairText:
    """What the judge may see of a pair: no names of models, runs or evaluations."""

    statement: str
    baseline: str
    optimized: str
    baseline_s: float | None = None
    optimized_s: float | None = None

    def content_key(self, model: str) -> str:
        """The cache key: the pair's content, the judge model and the prompt version."""
        text = json.dumps(
            [PROMPT_VERSION, model, self.statement, self.baseline, self.optimized],
            ensure_ascii=True,
        )
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class LLMResult:
    category: str | None
    secondary: str | None = None
    rationale: str = ""
    confidence: float | None = None
    error: str = ""
    latency_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    attempts: int = 0
    baseline_shown_as: str = "A"
    found_faster: bool | None = None  # the judge named the optimized program as the faster
    raw: list[str] = field(default_factory=list)


SYSTEM = (
    "You are an expert in program performance. You compare two correct programs for the "
    "same competitive-programming problem and say where the speed difference comes from. "
    "Answer with one JSON object only."
)


def build_messages(pair: PairText, baseline_first: bool) -> list[dict]:
    """The chat messages for one pair, the slower (baseline) program shown first or second."""
    shown = [(pair.baseline, pair.baseline_s), (pair.optimized, pair.optimized_s)]
    (first, first_s), (second, second_s) = shown if baseline_first else shown[::-1]

    def timed(label: str, seconds: float | None) -> str:
        return f"{label} (measured CPU time: {seconds:.4g} s)" if seconds else label

    categories = "\n".join(f"- {name}: {DEFINITIONS[name]}" for name in CATEGORIES)
    user = (
        f"Problem statement:\n{pair.statement.strip() or '(not given)'}\n\n"
        f"{timed('Program A', first_s)}:\n```python\n{first.rstrip()}\n```\n\n"
        f"{timed('Program B', second_s)}:\n```python\n{second.rstrip()}\n```\n\n"
        "Which change makes the faster of the two programs faster than the other? Choose the "
        f"main category and optionally a secondary one among:\n{categories}\n\n"
        'Reply with JSON: {"faster": "A" or "B", "category": one of the names above, '
        '"secondary": a name or null, "rationale": one or two sentences, "confidence": a '
        "number from 0 to 1}."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse_reply(text: str) -> dict:
    """The validated fields of a reply; ValueError naming what is wrong."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"reply is not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError("reply is not a JSON object")
    category = data.get("category")
    if category not in CATEGORIES:
        raise ValueError(f"category: {category!r} is not one of {', '.join(CATEGORIES)}")
    secondary = data.get("secondary")
    if secondary in ("", "null"):
        secondary = None
    if secondary is not None and secondary not in CATEGORIES:
        raise ValueError(f"secondary: {secondary!r} is not a category")
    rationale = data.get("rationale")
    if not isinstance(rationale, str) or not rationale.strip():
        raise ValueError("rationale: missing")
    confidence = data.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ValueError("confidence: not a number")
    if not 0 <= confidence <= 1:
        raise ValueError("confidence: not between 0 and 1")
    faster = data.get("faster")
    if faster not in (None, "A", "B"):
        raise ValueError(f"faster: {faster!r} is not A or B")
    return {
        "faster": faster,
        "category": category,
        "secondary": secondary,
        "rationale": rationale.strip()[:2000],
        "confidence": float(confidence),
    }


class LLMJudge:
    def __init__(self, settings: LLMSettings, seed: int = 0):
        self.settings = settings
        self.seed = seed
        self.client = make_client(settings)

    def judge(self, pair: PairText) -> LLMResult:
        """One pair; never raises for the endpoint's or the reply's faults (see `error`)."""
        rng = random.Random(f"{self.seed}:{pair.content_key(self.settings.model)}")
        baseline_first = rng.random() < 0.5
        exchange = ask(
            self.client,
            self.settings.model,
            build_messages(pair, baseline_first),
            parse_reply,
            invalid_retries=self.settings.invalid_retries,
            temperature=0,
            response_format={"type": "json_object"},
        )
        result = LLMResult(
            category=None,
            baseline_shown_as="A" if baseline_first else "B",
            error=exchange.error,
            latency_s=exchange.latency_s,
            input_tokens=exchange.input_tokens,
            output_tokens=exchange.output_tokens,
            attempts=exchange.attempts,
            raw=exchange.replies,
        )
        fields = exchange.value
        if fields is not None:
            result.category = fields["category"]
            result.secondary = fields["secondary"]
            result.rationale = fields["rationale"]
            result.confidence = fields["confidence"]
            if fields["faster"] is not None:
                optimized_label = "B" if baseline_first else "A"
                result.found_faster = fields["faster"] == optimized_label
        result.cost = (
            result.input_tokens * self.settings.price_input_per_mtok
            + result.output_tokens * self.settings.price_output_per_mtok
        ) / 1e6
        return result

    def judge_many(self, pairs: list[PairText], on_done=None) -> list[LLMResult]:
        """Every pair, at most `concurrency` requests in flight; results in pair order."""

        def one(index: int) -> LLMResult:
            result = self.judge(pairs[index])
            if on_done is not None:
                on_done(index, result)
            return result

        return map_concurrently(one, range(len(pairs)), self.settings.concurrency)
