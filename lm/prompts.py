"""Prompts and program extraction, plain Python (no torch): the trainer, evaluations, the
prompt-dataset exports (TRL, verl) and the scoring API (completions sent instead of
programs) share them.

A prompt is the problem statement (optionally with a baseline program to make faster),
ending inside an opened ```python block; the completion is the program followed by a
closing fence. A completion without one (cut at max_new_tokens, or rambling) has no
program: it is scored as a format failure.

Two styles (PROMPT_STYLES), one per kind of model:
- `plain`: the text above as it is, for the built-in tiny model and local folders (a model
  with no chat format continues text);
- `chatml`: the same request inside the chat format an instruction-tuned model was tuned on
  (SmolLM2's ChatML: its default system turn, a user turn, then the assistant's turn already
  opened with the ```python fence), so the answer is the program and the same closing fence
  ends it. `tests/lm/test_base_models.py` checks the text against the tokenizer's own chat
  template.

A problem may also be posed as a function (problems.function_task, a pack's `function.yaml`): the
request names one function ("Write a Python function `count_even(nums)` that returns ...")
instead of the whole statement, and the problem's harness (the lines that read standard
input, call the function and print its answer) follows the function in the program that is
scored. Small instruct models write such functions some of the time and whole stdin
programs almost never (docs/benchmarks.md, "Function tasks"), which is the mix of success
and failure a GRPO group learns from. Every path that turns a completion into a program
(training, evaluations, the scoring API's `completions`) appends the harness the same way.
"""

from __future__ import annotations

from typing import Protocol


class PosedFunction(Protocol):
    """What a prompt needs of a problem posed as a function (problems.function_task.FunctionTask
    is one): the function's name and the request that asks for it."""

    name: str
    request: str


FENCE = "```"


CHATML_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face"
"""SmolLM2's default system turn (its chat template adds it when a chat has none)."""


def make_prompt(
    statement: str,
    baseline_program: str | None = None,
    style: str = "plain",
    function: PosedFunction | None = None,
) -> str:
    """The prompt for `statement` in `style` (PROMPT_STYLES); for a problem posed as a
    function, its request instead of the statement."""
    try:
        write = PROMPT_STYLES[style]
    except KeyError:
        raise ValueError(
            f"prompt style {style!r} is not one of {', '.join(PROMPT_STYLES)}"
        ) from None
    return write(statement, baseline_program, function)


def plain_prompt(
    statement: str, baseline_program: str | None = None, function: PosedFunction | None = None
) -> str:
    parts = ["### Problem", (function.request if function else statement).strip(), ""]
    if baseline_program:
        parts += [
            "### A correct but slow program",
            f"{FENCE}python",
            baseline_program.rstrip(),
            FENCE,
            "",
            "### A faster program (Python 3, stdin to stdout)"
            if function is None
            else f"### A faster {function.name} (Python 3)",
        ]
    else:
        parts.append(
            "### Solution (Python 3, stdin to stdout)"
            if function is None
            else f"### {function.name} (Python 3)"
        )
    return "\n".join(parts) + f"\n{FENCE}python\n"


def chatml_request(
    statement: str, baseline_program: str | None = None, function: PosedFunction | None = None
) -> str:
    """The user turn of a chat prompt: what is asked (the statement, or the function's
    request), the slow program."""
    if function is not None:
        request = [function.request.strip()]
    else:
        request = [
            "Write a complete Python 3 program that solves the problem below. It reads the "
            "input from standard input and prints the answer to standard output.",
            "",
            statement.strip(),
        ]
    if baseline_program:
        request += [
            "",
            "This program is correct but slow:",
            f"{FENCE}python",
            baseline_program.rstrip(),
            FENCE,
            "",
            "Write a faster program that prints the same output."
            if function is None
            else f"Write a faster {function.name} that returns the same.",
        ]
    return "\n".join(request)


def chat_messages(
    statement: str,
    baseline_program: str | None = None,
    style: str = "plain",
    function: PosedFunction | None = None,
):
    """The prompt as chat messages, for a trainer that applies the model's chat template
    itself (verl): the system and user turns of `chatml`, or the whole plain prompt as one
    user message. The model then opens its own ```python block; extract_program skips it."""
    if style == "chatml":
        return [
            {"role": "system", "content": CHATML_SYSTEM},
            {"role": "user", "content": chatml_request(statement, baseline_program, function)},
        ]
    return [{"role": "user", "content": make_prompt(statement, baseline_program, style, function)}]


def chatml_prompt(
    statement: str, baseline_program: str | None = None, function: PosedFunction | None = None
) -> str:
    turns = chat_messages(statement, baseline_program, "chatml", function)
    chat = "".join(f"<|im_start|>{t['role']}\n{t['content']}<|im_end|>\n" for t in turns)
    return chat + f"<|im_start|>assistant\n{FENCE}python\n"


PROMPT_STYLES = {"plain": plain_prompt, "chatml": chatml_prompt}


def extract_program(completion: str, harness: str = "") -> str | None:
    """The program: the completion up to the closing fence, followed by `harness` (a problem
    posed as a function, FunctionTask); None without one. A completion that opens its own
    block first (a chat model prompted without the opened fence, as verl's chat template
    leaves it) has that opening line skipped."""
    stripped = completion.lstrip()
    if stripped.startswith(FENCE):
        newline = stripped.find("\n")
        completion = stripped[newline + 1 :] if newline >= 0 else ""
    end = completion.find(FENCE)
    if end < 0:
        return None
    program = completion[:end]
    if not program.strip():
        return None
    return f"{program.rstrip()}\n\n\n{harness}" if harness else program


def completion_target(program: str) -> str:
    """What a completion should be for `program` (the warm start's target)."""
    return program.rstrip() + f"\n{FENCE}\n"
