"""An OpenAI-compatible chat-completions endpoint as every LLM caller here uses it: the judge
(judges/llm.py) and the generator writer (problems/generators/llm.py). Plain Python, no Django.

- settings read from the environment under one or more prefixes (`JUDGE_LLM_`, or
  `GENERATOR_LLM_` falling back to `JUDGE_LLM_`), a bad value named by its variable;
- the `openai` client, which retries 429, 5xx, timeouts and lost connections with
  exponential backoff (`max_retries`);
- one question asked until its reply parses (`invalid_retries` re-asks), every attempt's
  tokens counted, the endpoint's failure kept as an error rather than raised;
- many questions with at most `concurrency` in flight.

It sits beside the judge, its first user, because codeopt_site (the shared home otherwise)
loads Celery on import and the engines must import without it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from typing import Any

from foundation.typed import setting_number


class EnvReader:
    """`<prefix>NAME` from the first of `prefixes` that sets it (an empty value is unset);
    errors name the variable the value came from."""

    def __init__(self, environ: Mapping[str, str] | None, prefixes: Sequence[str]):
        self.env = os.environ if environ is None else environ
        self.prefixes = tuple(prefixes)

    def names(self, suffix: str) -> str:
        """Every variable consulted for `suffix`, for messages: "A (or B)"."""
        first, *rest = (prefix + suffix for prefix in self.prefixes)
        return f"{first} (or {' or '.join(rest)})" if rest else first

    def lookup(self, suffix: str) -> tuple[str, str]:
        """(variable, stripped value) of the first prefix that sets it; ("", "") if none."""
        for prefix in self.prefixes:
            raw = self.env.get(prefix + suffix, "").strip()
            if raw:
                return prefix + suffix, raw
        return "", ""

    def number(self, suffix: str, kind: type, default, minimum: float = 0):
        name, raw = self.lookup(suffix)
        return setting_number(name, raw, kind, minimum) if raw else default


@dataclass(frozen=True)
class EndpointSettings:
    """What every caller needs of its endpoint; subclasses add their own fields (with
    defaults) and may change these defaults."""

    base_url: str
    model: str
    api_key: str = "none"
    timeout_s: float = 120.0
    max_retries: int = 4  # the client's retries of 429, 5xx, timeouts and lost connections
    invalid_retries: int = 2  # re-asks after a reply that cannot be used
    concurrency: int = 4  # requests in flight at once
    max_tokens: int | None = None  # a reply's length cap (None: the server's own)

    def length_cap(self) -> dict:
        """The request's max_tokens argument, when one is set."""
        return {"max_tokens": self.max_tokens} if self.max_tokens else {}

    @classmethod
    def endpoint_from_env(cls, read: EnvReader) -> dict | None:
        """The fields above from the environment (the defaults of `cls` where unset); None
        when no base URL is set."""
        base_name, base_url = read.lookup("BASE_URL")
        if not base_url:
            return None
        _, model = read.lookup("MODEL")
        if not model:
            raise ValueError(f"{read.names('MODEL')}: required when {base_name} is set")
        default = {item.name: item.default for item in fields(cls)}
        return dict(
            base_url=base_url,
            model=model,
            api_key=read.lookup("API_KEY")[1] or "none",
            timeout_s=read.number("TIMEOUT_S", float, default["timeout_s"]),
            max_retries=read.number("MAX_RETRIES", int, default["max_retries"]),
            invalid_retries=read.number("INVALID_RETRIES", int, default["invalid_retries"]),
            concurrency=max(1, read.number("CONCURRENCY", int, default["concurrency"])),
            max_tokens=read.number("MAX_TOKENS", int, default["max_tokens"], minimum=1),
        )


def make_client(settings: EndpointSettings):
    from openai import OpenAI

    return OpenAI(
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
    )


@dataclass
class Exchange:
    """One question and its replies: `value` is what `parse` made of the reply used, None
    when none could be used (then `error` says why)."""

    value: Any = None
    error: str = ""
    attempts: int = 0  # requests answered or failed, not counting the client's own retries
    input_tokens: int = 0  # over every attempt: each is paid for
    output_tokens: int = 0
    latency_s: float = 0.0
    replies: list[str] = field(default_factory=list)  # each attempt's reply, truncated


class MalformedAnswer(Exception):
    """The endpoint answered 200 with something that is not a chat completion (a proxy's
    HTML page, a cut-off body)."""


def _reply(client, model: str, messages: list[dict], create: dict) -> tuple[str, int, int]:
    """(reply text, prompt tokens, completion tokens) of one request; OpenAIError or
    MalformedAnswer for the endpoint's faults."""
    try:
        response = client.chat.completions.create(model=model, messages=messages, **create)
    except ValueError as exc:  # the client's json.loads of a 200 body
        raise MalformedAnswer(f"the answer is not JSON ({exc})") from None
    try:
        choices, usage = response.choices, response.usage
        text = (choices[0].message.content or "") if choices else ""
        tokens = (usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else (0, 0)
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        raise MalformedAnswer(f"not a chat completion ({type(exc).__name__}: {exc})") from None
    if not isinstance(text, str) or not all(isinstance(n, int) for n in tokens):
        raise MalformedAnswer("not a chat completion (a field of the wrong type)")
    return text, *tokens


def ask(
    client,
    model: str,
    messages: list[dict],
    parse: Callable[[str], Any],
    *,
    invalid_retries: int,
    reask: Callable[[list[dict], str, str], list[dict]] | None = None,
    reply_chars: int = 4000,
    **create: Any,
) -> Exchange:
    """Ask until `parse` accepts a reply, at most 1 + `invalid_retries` times; never raises
    for the endpoint's or the reply's faults.

    1. Send `messages` (with `create`'s extra arguments: temperature, response_format ...).
    2. Count the tokens, keep the reply (its first `reply_chars` characters).
    3. `parse(reply)`: its value ends the exchange; its ValueError is the error so far and,
       when `reask` is given, `reask(messages, reply, error)` gives the next messages (the
       same ones are sent again otherwise).
    4. An OpenAIError (after the client's own retries) or an answer that is not a chat
       completion ends it with that error.
    """
    from openai import OpenAIError

    exchange = Exchange()
    started = time.monotonic()
    try:
        for _ in range(1 + invalid_retries):
            exchange.attempts += 1
            text, input_tokens, output_tokens = _reply(client, model, messages, create)
            exchange.input_tokens += input_tokens
            exchange.output_tokens += output_tokens
            exchange.replies.append(text[:reply_chars])
            try:
                exchange.value = parse(text)
            except ValueError as exc:
                exchange.error = f"invalid reply: {exc}"
                if reask is not None:
                    messages = reask(messages, text, str(exc))
                continue
            exchange.error = ""
            break
    except (OpenAIError, MalformedAnswer) as exc:
        exchange.error = f"{type(exc).__name__}: {exc}"[:2000]
    exchange.latency_s = time.monotonic() - started
    return exchange


def map_concurrently(function: Callable[[Any], Any], items: Sequence, concurrency: int) -> list:
    """`function` over `items`, at most `concurrency` calls at once; results in item order."""
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        return list(pool.map(function, items))
