"""Prompts and program extraction, plain Python (no torch): the trainer, the prompt-dataset
export and the scoring API (completions sent instead of programs) share them.

A prompt is the problem statement (optionally with a baseline program to make faster),
ending inside an opened ```python block; the completion is the program followed by a
closing fence. A completion without one (cut at max_new_tokens, or rambling) has no
program: it is scored as a format failure.
"""

from __future__ import annotations

FENCE = "```"


def make_prompt(statement: str, baseline_program: str | None = None) -> str:
    parts = ["### Problem", statement.strip(), ""]
    if baseline_program:
        parts += [
            "### A correct but slow program",
            f"{FENCE}python",
            baseline_program.rstrip(),
            FENCE,
            "",
            "### A faster program (Python 3, stdin to stdout)",
        ]
    else:
        parts.append("### Solution (Python 3, stdin to stdout)")
    return "\n".join(parts) + f"\n{FENCE}python\n"


def extract_program(completion: str) -> str | None:
    """The program: the completion up to the closing fence; None without one."""
    end = completion.find(FENCE)
    if end < 0:
        return None
    program = completion[:end]
    return program if program.strip() else None


def completion_target(program: str) -> str:
    """What a completion should be for `program` (the warm start's target)."""
    return program.rstrip() + f"\n{FENCE}\n"
