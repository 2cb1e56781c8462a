"""Input generators for any imported problem (issue 19), plain Python, no Django.

Three sources propose generators, each a Python 3 program run as `python3 -P gen.py SEED
SIZE` that prints one input whose size grows with SIZE (1..PipelineConfig.size_max, and past
it where the statement states no bound: problems/generators/growth.py):

- `hand`: written by people, imported with the problem (a Kattis package's generators/);
- `inferred`: made here from the structure of the problem's own tests and its statement's
  constraint lines (problems/generators/infer.py; refuses a layout it cannot read);
- `llm`: written by a model over an OpenAI-compatible endpoint from the statement, the
  limits and a few sample inputs, blind to the solutions (problems/generators/llm.py).

Every proposal is validated in the sandbox before the pipeline grows tests from it
(problems/generators/validate.py); a rejected one is kept with its reasons.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SOURCES = ("hand", "inferred", "llm")


@dataclass
class Proposal:
    """One generator proposed for one problem, before validation."""

    name: str  # unique within the problem, e.g. "inferred", "llm-3", or the hand-written file
    source: str  # one of SOURCES
    code: str  # the program; may be empty when the source failed (then `error` says why)
    provenance: dict = field(default_factory=dict)
    """Where it came from: for `llm` the model, prompt version, the prompt's hash, the reply
    and the attempts; for `inferred` the layout read and the constraint lines used."""
    error: str = ""  # why the source gave no usable program (a refusal, an unusable reply)


@dataclass
class Refusal:
    """A problem a source declines, with the reason named (never a guess)."""

    reason: str
