"""The LLM judge: any OpenAI-compatible chat-completions endpoint (a vLLM server running an
open model such as GPT-OSS-120B, or a hosted API), through the `openai` client, which
retries 429, 5xx and timeouts with exponential backoff (foundation/llm_endpoint.py, shared with the
generator writer). Plain Python, no Django.

Blind: the two programs are shown as "Program A" and "Program B" in an order drawn per pair,
with their measured times, the measured evidence (judges/evidence.py: instructions per size,
exponents, cost ratios, the input/output share) and the problem statement, never a model,
run or evaluation name. The reply must be a JSON object {category, secondary, rationale,
confidence}; a reply that is not, after `invalid_retries` re-asks, is that pair's `unclear`
with the replies kept (a small model often answers off-schema); an endpoint that fails is
that pair's judge error. Neither stops the batch.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field

from foundation.llm_endpoint import EndpointSettings, EnvReader, ask, make_client, map_concurrently
from judges.categories import CATEGORIES, DEFINITIONS, UNCLEAR
from judges.evidence import Evidence

PROMPT_VERSION = "speedup-source-v2"


RESPONSE_FORMATS = ("json_object", "json_schema", "json_object_schema", "none")
"""How the reply's shape is asked of the server: `json_object` (any JSON), `json_schema` (the
verdict's schema, OpenAI's and vLLM's way), `json_object_schema` (the schema inside a
json_object request, llama.cpp's server's way), `none` (the prompt alone)."""

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "faster": {"type": "string", "enum": ["A", "B"]},
        "category": {"type": "string", "enum": list(CATEGORIES)},
        "secondary": {"anyOf": [{"type": "string", "enum": list(CATEGORIES)}, {"type": "null"}]},
        "rationale": {"type": "string", "minLength": 1},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["faster", "category", "secondary", "rationale", "confidence"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class LLMSettings(EndpointSettings):
    price_input_per_mtok: float = 0.0  # currency units per million prompt tokens
    price_output_per_mtok: float = 0.0
    response_format: str = "json_object"  # one of RESPONSE_FORMATS

    def response_format_field(self) -> dict | None:
        """The request's `response_format` (None: not sent)."""
        if self.response_format == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "schema": VERDICT_SCHEMA, "strict": True},
            }
        if self.response_format == "json_object_schema":
            return {"type": "json_object", "schema": VERDICT_SCHEMA}
        if self.response_format == "json_object":
            return {"type": "json_object"}
        return None

    @classmethod
    def from_env(cls, environ=None) -> LLMSettings | None:
        """From JUDGE_LLM_* variables; None when no endpoint is configured."""
        read = EnvReader(environ, ("JUDGE_LLM_",))
        endpoint = cls.endpoint_from_env(read)
        if endpoint is None:
            return None
        name, shape = read.lookup("RESPONSE_FORMAT")
        if shape and shape not in RESPONSE_FORMATS:
            raise ValueError(f"{name}: {shape!r} is not one of {', '.join(RESPONSE_FORMATS)}")
        return cls(
            **endpoint,
            price_input_per_mtok=read.number("PRICE_INPUT_PER_MTOK", float, 0.0),
            price_output_per_mtok=read.number("PRICE_OUTPUT_PER_MTOK", float, 0.0),
            response_format=shape or "json_object",
        )


@dataclass(frozen=True)
class PairText:
    """What the judge may see of a pair: no names of models, runs or evaluations."""

    statement: str
    baseline: str
    optimized: str
    baseline_s: float | None = None
    optimized_s: float | None = None
    evidence: Evidence | None = None

    def content_key(self, model: str) -> str:
        """The cache key: the pair's content and evidence, the judge model and the prompt
        version."""
        measured = self.evidence.as_dict() if self.evidence and self.evidence.measured else None
        text = json.dumps(
            [PROMPT_VERSION, model, self.statement, self.baseline, self.optimized, measured],
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


def _millions(value: float | None) -> str:
    return "–" if value is None else f"{value / 1e6:,.1f}M"


def evidence_text(evidence: Evidence | None, baseline_first: bool) -> str:
    """The measured evidence as the prompt shows it, in the prompt's A/B names."""
    if evidence is None or not evidence.measured:
        why = evidence.note if evidence and evidence.note else "no input generator for it here"
        return f"Measured evidence: none ({why})."
    a, b = (
        (evidence.baseline, evidence.optimized)
        if baseline_first
        else (evidence.optimized, evidence.baseline)
    )
    rows = [
        f"| {size} | {_millions(a.net[i])} | {_millions(a.io[i])} | {_millions(b.net[i])} | "
        f"{_millions(b.io[i])} |"
        for i, size in enumerate(evidence.sizes)
    ]

    def exponent(side) -> str:
        return "unknown" if side.exponent is None else f"{side.exponent:.2f}"

    def share(side) -> str:
        return "unknown" if side.io_share is None else f"{side.io_share:.0%}"

    ratio, growth = evidence.ratio, evidence.ratio_growth  # baseline / optimized
    if not baseline_first:  # the same figures as A / B
        ratio = 1 / ratio if ratio else None
        growth = 1 / growth if growth else None
    return "\n".join(
        [
            "Measured evidence (CPU instructions executed, start-up excluded, on generated "
            "inputs of growing SIZE; I/O = instructions in reading, parsing and writing):",
            "| SIZE | A total | A I/O | B total | B I/O |",
            "|---|---|---|---|---|",
            *rows,
            f"Scaling exponent (log-log slope against SIZE): A {exponent(a)}, B {exponent(b)}.",
            f"Cost ratio A/B at the largest SIZE: {ratio:.2f}" if ratio else "Cost ratio: unknown.",
            f"The ratio A/B changed {growth:.2f}x from the smallest SIZE to the largest "
            "(about 1: the same complexity; far from 1: a complexity change)."
            if growth
            else "",
            f"Share of the cost that is I/O at the largest SIZE: A {share(a)}, B {share(b)}.",
        ]
    ).strip()


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
        f"{evidence_text(pair.evidence, baseline_first)}\n\n"
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

    def _shape(self) -> dict:
        field = self.settings.response_format_field()
        shape = {} if field is None else {"response_format": field}
        return {**shape, **self.settings.length_cap()}

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
            **self._shape(),
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
        if fields is None and exchange.error.startswith("invalid reply"):
            # the model answered, never validly: an abstention, its words kept
            result.category = UNCLEAR
            result.rationale = f"no valid answer after {exchange.attempts} tries ({exchange.error})"
            result.error = ""
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
