"""A completions upload (JSON lines) read for an evaluation: each line a problem's program,
kept or refused on its own, by line number, so one bad line does not sink the file.

Plain Python; evaluations/services.check_evaluation_request calls it.
"""

from __future__ import annotations

from foundation import jsonlines


def parse_completions(
    text: str, known: set[str], where: str = "the evaluated problems"
) -> tuple[list[dict], list[dict]]:
    """(completions, errors) of a JSON-lines upload: each line an object with `problem` (a
    slug among `known`), `program` (text) and optionally `sample_index` (an integer >= 0,
    unique per problem; numbered in file order when absent). A malformed line is reported
    by its number and left out; the others are kept."""
    kept, errors = [], []
    used: dict[str, set[int]] = {}
    for number, row in jsonlines.objects(text, errors):
        problem, program = row.get("problem"), row.get("program")
        if not isinstance(problem, str) or not problem:
            errors.append({"line": number, "error": "problem: missing or not a string"})
            continue
        if problem not in known:
            errors.append({"line": number, "error": f"problem: {problem!r} is not among {where}"})
            continue
        if not isinstance(program, str):
            errors.append({"line": number, "error": "program: missing or not a string"})
            continue
        index = row.get("sample_index")
        taken = used.setdefault(problem, set())
        if index is None:
            index = max(taken, default=-1) + 1
        elif not isinstance(index, int) or isinstance(index, bool) or index < 0:
            errors.append({"line": number, "error": "sample_index: not an integer >= 0"})
            continue
        if index in taken:
            errors.append(
                {"line": number, "error": f"sample_index: {index} repeats for {problem!r}"}
            )
            continue
        taken.add(index)
        kept.append({"problem": problem, "program": program, "index": index})
    return kept, errors
