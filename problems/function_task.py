"""A problem posed to models as one function instead of its statement (a pack's
`function.yaml`): what the model is asked, and the harness that turns the function into the
stdin-to-stdout program that is scored (lm/prompts.py). Plain Python."""

from __future__ import annotations

import keyword
from dataclasses import dataclass


@dataclass(frozen=True)
class FunctionTask:
    """A problem posed as one function: `request` is what the model is asked, `harness` the
    program's reading and printing around the function `name`."""

    name: str
    request: str
    harness: str

    @classmethod
    def from_dict(cls, data: object, where: str = "function") -> FunctionTask | None:
        """The task of a stored or imported dict ({} or None: the problem has none);
        ValueError naming the field at fault."""
        if not data:
            return None
        if not isinstance(data, dict):
            raise ValueError(f"{where}: must be a mapping with name, request and harness")
        unknown = set(data) - {"name", "request", "harness"}
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        values = {}
        for field in ("name", "request", "harness"):
            value = data.get(field)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{where}.{field}: must be a non-empty text")
            values[field] = value.strip() + ("\n" if field == "harness" else "")
        name = values["name"]
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"{where}.name: {name!r} is not a Python function name")
        if f"`{name}(" not in values["request"]:
            raise ValueError(f"{where}.request: must name the function as `{name}(...)`")
        try:
            compile(values["harness"], f"{where}.harness", "exec")
        except SyntaxError as exc:
            raise ValueError(f"{where}.harness: line {exc.lineno}: {exc.msg}") from None
        if f"{name}(" not in values["harness"]:
            raise ValueError(f"{where}.harness: never calls {name}()")
        return cls(**values)

    def as_dict(self) -> dict:
        return {"name": self.name, "request": self.request, "harness": self.harness}
