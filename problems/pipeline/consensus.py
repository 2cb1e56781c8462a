"""Consensus: which answer do the correct references agree on? Plain Python."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from execution.checker import CheckerSettings, check_output


@dataclass
class Consensus:
    answer_path: Path | None  # a file holding the agreed answer; None without consensus
    agreeing: list[str]  # the references that printed it
    disagreeing: list[str]  # finished, printed something else
    failed: list[str]  # did not finish (crash, time limit)
    reason: str  # why there is no consensus; empty when there is


def find_consensus(
    outputs: dict[str, Path | None],
    checker: CheckerSettings,
    *,
    min_agree: int,
) -> Consensus:
    """Group the references' outputs by what the problem's checker calls equal (tolerances
    included) and keep the largest group when it has `min_agree` members and is a strict
    majority of all the references asked (`outputs`, one entry per reference)."""
    groups: list[tuple[bytes, Path, list[str]]] = []  # (output, a file, names)
    failed = [name for name, path in outputs.items() if path is None]
    for name, path in outputs.items():
        if path is None:
            continue
        output = path.read_bytes()
        for representative, _, names in groups:
            if check_output(representative, output, checker).ok:
                names.append(name)
                break
        else:
            groups.append((output, path, [name]))
    if not groups:
        return Consensus(None, [], [], failed, "no reference finished")
    groups.sort(key=lambda group: -len(group[2]))
    _, path, agreeing = groups[0]
    disagreeing = [name for _, _, names in groups[1:] for name in names]
    if len(agreeing) < min_agree:
        reason = f"only {len(agreeing)} reference(s) agree; at least {min_agree} needed"
    elif 2 * len(agreeing) <= len(outputs):
        reason = f"{len(agreeing)} of {len(outputs)} references agree: no majority"
    else:
        return Consensus(path, agreeing, disagreeing, failed, "")
    return Consensus(None, agreeing, disagreeing, failed, reason)
