"""Seeds that vary (issue 33): when every seed of an inferred generator gave the same input
(a value the same in every test, no stated bound), its narrow observed ranges widen and
validation runs again (problems/generators/validate.py). Plain Python.
"""

from __future__ import annotations

from dataclasses import asdict

from problems.generators import Proposal
from problems.generators.infer import generator_code
from problems.generators.layout import fields_of, growth_provenance, layout_from_dict

WIDEN_SPREAD = 64
"""A narrow observed range (fewer values than this) widens to this many values."""


def widened(proposal: Proposal) -> tuple[Proposal, list[str]] | None:
    """The inferred `proposal` with each narrow observed range widened (an integer or a
    length seen over fewer than WIDEN_SPREAD values, with no stated bound, now spans that
    many, keeping its sign), and what was widened; None when nothing can widen (not an
    inferred proposal, or every range stated or wide already)."""
    data = proposal.provenance.get("layout")
    if proposal.source != "inferred" or not data:
        return None
    layout = layout_from_dict(data)
    notes = []
    for f in fields_of(layout):
        if f.source != "observed" or f.role == "cell" or f.kind not in ("int", "str"):
            continue
        if f.hi - f.lo + 1 >= WIDEN_SPREAD or f.upper:
            continue
        before = f"{f.lo}..{f.hi}"
        f.hi = f.lo + WIDEN_SPREAD - 1
        if f.grow_cap:
            f.grow_cap = max(f.grow_cap, f.hi)
        notes.append(f"{f.id} {before} → {f.lo}..{f.hi}")
    if not notes:
        return None
    size_max = int(proposal.provenance.get("size_max", 100))
    provenance = {**proposal.provenance, "layout": asdict(layout), "widened": notes}
    provenance.update(growth_provenance(layout, size_max))
    code = generator_code(layout, size_max)
    return Proposal(proposal.name, proposal.source, code, provenance), notes
