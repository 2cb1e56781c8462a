"""Input generators written by a model (the `llm` source; paper, section 1: an LLM wrote 10
generators per problem). Plain Python, no Django.

The model sees the statement, the limits and a few sample inputs, never a solution, and is
asked N times, each time for a different kind of input, so that the N generators differ. Its
reply is only parsed (the program is compiled, never run): whether the program terminates,
is deterministic and prints valid inputs is for the sandboxed validation
(problems/generators/validate.py).

The endpoint is any OpenAI-compatible chat-completions server, reached through the shared
client of foundation/llm_endpoint.py: the client retries 429, 5xx and timeouts; a reply that cannot
be used is asked again, with the reason, `invalid_retries` times. One failed request or one
unusable reply becomes that generator's error; the others go on.
"""

from __future__ import annotations

import ast
import hashlib
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass

from foundation.llm_endpoint import EndpointSettings, EnvReader, ask, make_client, map_concurrently
from problems.generators import Proposal

logger = logging.getLogger(__name__)

PROMPT_VERSION = "generator-v2"  # with each proposal: bump on a change of SYSTEM, AIMS, the ask
SIZE_MAX = 100  # the SIZE at which an input reaches the statement's limits (PipelineConfig)
STATEMENT_CHARS = 30_000  # statements are a few thousand characters; a longer one is cut
SAMPLES_SHOWN = 3  # sample inputs shown: enough to show the format, few enough to stay short
SAMPLE_LINES = 40  # ... each cut to this many lines
SAMPLE_CHARS = 2_000  # ... and characters (one line of 10^5 numbers is not worth showing)
REPLY_CHARS = 20_000  # of each reply kept in the provenance
TEMPERATURE = 0.0  # the N prompts differ, so the N programs differ without sampling noise

AIMS = (
    ("random", "random inputs: every value drawn uniformly across its full allowed range"),
    (
        "worst case for naive solutions",
        "the structure that makes a straightforward solution (quadratic, exponential, "
        "re-scanning, deep recursion) as slow as possible",
    ),
    (
        "edge values",
        "values at the boundaries of the constraints: minima, maxima, zeros, negatives where "
        "allowed, and the smallest and largest counts",
    ),
    (
        "large results",
        "values that make intermediate results and the answer as large as the constraints "
        "allow (sums, products, counts that overflow 32 or 64 bits)",
    ),
    (
        "ordered data",
        "already sorted, reverse sorted, or otherwise patterned data (alternating, "
        "organ-pipe, arithmetic progressions)",
    ),
    (
        "many duplicates",
        "few distinct values: many repeated elements, equal keys, one value everywhere",
    ),
    (
        "extreme shapes",
        "degenerate shapes: for graphs and trees a long path or a star; for strings one "
        "repeated character or a short period; for grids a single long row or column",
    ),
    (
        "adversarial for fast solutions",
        "the costliest input for a well-written efficient solution: maximal size everywhere "
        "with the structure its algorithm handles slowest",
    ),
    (
        "dense versus sparse",
        "the densest structure allowed (many edges, many queries, long strings) or the "
        "sparsest, chosen per seed",
    ),
    (
        "mixed",
        "a mixture of the above kinds in one input, drawn per seed (where the format has "
        "several test cases or many queries, vary them within the input)",
    ),
)


@dataclass(frozen=True)
class GeneratorLLMSettings(EndpointSettings):
    """The generator writer's endpoint: GENERATOR_LLM_* variables, each falling back to the
    judge's JUDGE_LLM_* counterpart (one endpoint can serve both)."""

    timeout_s: float = 300.0  # a reply is a whole program: longer than a judge's verdict
    count: int = 10  # generators asked for per problem (paper: 10)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GeneratorLLMSettings | None:
        """None when neither GENERATOR_LLM_BASE_URL nor JUDGE_LLM_BASE_URL is set;
        ValueError naming the variable whose value cannot be used."""
        read = EnvReader(environ, ("GENERATOR_LLM_", "JUDGE_LLM_"))
        endpoint = cls.endpoint_from_env(read)
        if endpoint is None:
            return None
        own = EnvReader(environ, ("GENERATOR_LLM_",))  # the judge has no count
        return cls(**endpoint, count=own.number("COUNT", int, 10, minimum=1))


SYSTEM = (
    "You write test-input generators for competitive-programming problems: short, "
    "deterministic Python 3 programs that print one valid input. Reply with the program in "
    "one ```python block."
)


def _cut(text: str, lines: int, chars: int) -> str:
    """`text` cut to its first `lines` lines and `chars` characters, saying what was cut."""
    kept = "\n".join(text.splitlines()[:lines])[:chars]
    if len(kept) >= len(text.rstrip("\n")):
        return kept
    whole = f"{len(text.splitlines()):,} lines, {len(text):,} characters"
    return f"{kept}\n... (cut: the whole sample has {whole})"


def aim_of(index: int) -> tuple[str, str]:
    """The kind of input generator `index` (1-based) aims at; past len(AIMS) they repeat."""
    return AIMS[(index - 1) % len(AIMS)]


def build_messages(
    statement: str,
    time_limit_s: float | None,
    memory_mb: int | None,
    samples: list[str],
    index: int,
    count: int,
) -> list[dict]:
    """The chat messages asking for generator `index` of `count` (1-based). Blind to the
    solutions: it takes none."""
    if not 1 <= index <= count:
        raise ValueError(f"index: {index} is not within 1..{count}")
    statement = statement.strip() or "(not given)"
    if len(statement) > STATEMENT_CHARS:
        statement = statement[:STATEMENT_CHARS] + "\n... (the statement is cut here)"
    limits = [
        f"time limit {time_limit_s:g} s per test" if time_limit_s else "time limit not given",
        f"memory limit {memory_mb:g} MB" if memory_mb else "memory limit not given",
    ]
    shown = [s for s in samples if s.strip()][:SAMPLES_SHOWN]
    sample_text = (
        "".join(
            f"Sample input {k}:\n```\n{_cut(s, SAMPLE_LINES, SAMPLE_CHARS).rstrip()}\n```\n\n"
            for k, s in enumerate(shown, 1)
        )
        or "No sample input is given.\n\n"
    )
    aim, description = aim_of(index)
    if count > len(AIMS) and index > len(AIMS):
        description += " (another generator has this aim too: choose a different variant)"
    user = (
        f"Problem statement:\n{statement}\n\n"
        f"Limits: {'; '.join(limits)}.\n\n"
        f"{sample_text}"
        f"Write a Python 3 program, run as `python3 gen.py SEED SIZE`, that prints exactly one "
        "input for this problem to standard output:\n"
        "- SEED is a non-negative integer (up to 2**48), SIZE a positive integer; read both "
        "from sys.argv.\n"
        "- The input must be valid: exactly the format of the statement, every constraint "
        "met (ranges, distinctness, connectivity, guarantees the statement promises).\n"
        "- Its size grows with SIZE: small at 1, and at "
        f"{SIZE_MAX} as large as the constraints allow, where a slow solution needs seconds.\n"
        f"- SIZE may go past {SIZE_MAX}. A count or value whose limit the statement states "
        "stays within it (clamp it there). One whose limit the statement does not state "
        f"keeps growing in proportion: at SIZE {10 * SIZE_MAX} it is ten times its size at "
        f"{SIZE_MAX}.\n"
        "- Deterministic: the same SEED and SIZE always print the same bytes. Draw every "
        "random choice from random.Random(SEED); never use the time, os.urandom, id(), the "
        "hash of a string or the order of a set of strings.\n"
        "- The standard library only; read no files, use no network, start no other program.\n"
        "- Finish within a few seconds even at the largest SIZE (build the output in a list "
        "and write it once).\n\n"
        f"This is generator {index} of {count}; each aims at a different kind of input. "
        f"Aim of this one ({aim}): {description}.\n\n"
        "Reply with the complete program in one ```python block."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def prompt_sha256(messages: list[dict]) -> str:
    text = json.dumps(messages, ensure_ascii=True, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


# an opening fence with its info string, then everything up to a closing fence line (or the
# end of a reply that was cut off)
FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.S | re.M)
PYTHON_TAGS = {"python", "python3", "py", "py3"}


def _check_program(code: str) -> str:
    """`code` when it compiles and reads sys.argv; ValueError naming what is wrong. Compiled
    only, never run."""
    try:
        compile(code, "gen.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # ValueError: a null byte (Python 3.11)
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        message = f"the program does not compile: {getattr(exc, 'msg', exc)}{where}"
        raise ValueError(message) from None
    if not _reads_argv(ast.parse(code)):
        raise ValueError("the program does not read SEED and SIZE from sys.argv")
    return code


def _reads_argv(tree: ast.AST) -> bool:
    """Whether the program uses sys.argv: `sys.argv`, `from sys import argv`, or argparse
    (whose parse_args reads it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "argv":
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "sys":
            if any(alias.name == "argv" for alias in node.names):
                return True
        if isinstance(node, ast.Attribute) and node.attr == "parse_args":
            return True
    return False


def parse_reply(text: str) -> str:
    """The program in a reply: its ```python block (the longest usable one when several;
    an untagged block when none is tagged), else the whole reply when it is a program.
    ValueError naming why there is none."""
    if not text.strip():
        raise ValueError("the reply is empty")
    blocks = [(tag.lower(), body) for tag, body in FENCE.findall(text)]
    candidates = [body for tag, body in blocks if tag in PYTHON_TAGS] or [
        body for tag, body in blocks if not tag
    ]
    candidates = sorted((c.strip("\n") + "\n" for c in candidates if c.strip()), key=len)
    if not candidates:
        if "```" in text:
            raise ValueError("the reply has no ```python block")
        try:
            return _check_program(text.strip() + "\n")
        except ValueError as exc:
            message = f"the reply has no ```python block and is not a program: {exc}"
            raise ValueError(message) from None
    problems = []
    for code in reversed(candidates):  # longest first: a usage line is shorter
        try:
            return _check_program(code)
        except ValueError as exc:
            problems.append(str(exc))
    raise ValueError(problems[0])


def _reask(messages: list[dict], reply: str, error: str) -> list[dict]:
    """The conversation so far and why its last reply cannot be used (at temperature 0 the
    same question would get the same reply)."""
    return [
        *messages,
        {"role": "assistant", "content": reply[:REPLY_CHARS]},
        {
            "role": "user",
            "content": f"That reply cannot be used: {error}. Reply with the complete "
            "corrected program in one ```python block.",
        },
    ]


def propose_generators(
    problem_slug: str,
    statement: str,
    time_limit_s: float | None,
    memory_mb: int | None,
    samples: list[str],
    settings: GeneratorLLMSettings,
    count: int | None = None,
) -> list[Proposal]:
    """`count` (default settings.count) proposals `llm-1` .. `llm-N`, in that order, at most
    settings.concurrency requests in flight. Never raises for the endpoint or a reply: a
    failed request or an unusable reply (after settings.invalid_retries re-asks) is a
    proposal with empty code and `error` saying why; an unreachable endpoint gives N such."""
    count = settings.count if count is None else count
    if count < 1:
        raise ValueError(f"count: {count} is not at least 1")
    client = make_client(settings)

    def propose(index: int) -> Proposal:
        messages = build_messages(statement, time_limit_s, memory_mb, samples, index, count)
        exchange = ask(
            client,
            settings.model,
            messages,
            parse_reply,
            invalid_retries=settings.invalid_retries,
            reask=_reask,
            reply_chars=REPLY_CHARS,
            temperature=TEMPERATURE,
            **settings.length_cap(),
        )
        if exchange.error:
            logger.warning("llm generators for %s: llm-%d: %s", problem_slug, index, exchange.error)
        return Proposal(
            name=f"llm-{index}",
            source="llm",
            code=exchange.value or "",
            provenance={
                "model": settings.model,
                "prompt_version": PROMPT_VERSION,
                "prompt_sha256": prompt_sha256(messages),
                "grows_past_size_max": True,  # the prompt asks unstated limits to keep growing
                "aim": aim_of(index)[0],
                "reply": exchange.replies[-1] if exchange.replies else "",
                "attempts": exchange.attempts,
                "latency_s": round(exchange.latency_s, 3),
                "input_tokens": exchange.input_tokens,
                "output_tokens": exchange.output_tokens,
            },
            error=exchange.error,
        )

    return map_concurrently(propose, range(1, count + 1), settings.concurrency)
