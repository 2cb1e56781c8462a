"""Measured evidence (judges/evidence.py), validated on programs whose answer is known: real
callgrind runs in the real sandbox, the I/O share of a program that only reads and writes
against one that only computes, a print's write counted once, the counts repeatable, a
stripped interpreter reported as such; then whole pairs of the built-in pack measured on its
generators, and the decision (judges/decide.py) naming what a person would."""

from __future__ import annotations

from pathlib import Path

import pytest

from judges.decide import decide
from judges.evidence import (
    Evidence,
    count_instructions,
    counting_python,
    imports_only,
    measure_pair,
    parse_callgrind,
)

PACK = Path(__file__).resolve().parents[2] / "problems" / "packs" / "core"
ECHO = "import sys\nfor line in sys.stdin:\n    print(line.strip())\n"
COMPUTE = "n = int(input())\nt = 0\nfor i in range(n):\n    t += i * i % 7\nprint(t)\n"
WRITES = "import sys\nn = int(input())\nfor i in range(n):\n    sys.stdout.write(str(i) + '\\n')\n"
PRINTS = "n = int(input())\nfor i in range(n):\n    print(i)\n"


def _net(source: str, given: bytes, tmp_path: Path, python) -> tuple[int, int | None]:
    stdin = tmp_path / "in.txt"
    stdin.write_bytes(given)
    startup = count_instructions(imports_only(source), None, tmp_path / "s", python)
    counted = count_instructions(source, stdin, tmp_path / "c", python)
    assert startup is not None and counted is not None
    io = None if counted.io is None else counted.io - (startup.io or 0)
    return counted.total - startup.total, io


@pytest.fixture(scope="module")
def python():
    found = counting_python()
    assert found is not None, "the interpreter running the tests keeps its symbols (pyenv)"
    return found


def test_the_io_share_separates_reading_and_writing_from_computing(python, tmp_path):
    lines = b"".join(b"%d %d\n" % (i, i * 7) for i in range(20_000))
    echo_total, echo_io = _net(ECHO, lines, tmp_path, python)
    compute_total, compute_io = _net(COMPUTE, b"200000\n", tmp_path, python)
    assert echo_io / echo_total > 0.7, (echo_io, echo_total)
    assert compute_io / compute_total < 0.02, (compute_io, compute_total)
    assert echo_total > 1e7 and compute_total > 1e7  # both far above start-up and imports


def test_a_prints_write_is_counted_once_and_counts_repeat(python, tmp_path):
    prints_total, prints_io = _net(PRINTS, b"30000\n", tmp_path, python)
    writes_total, writes_io = _net(WRITES, b"30000\n", tmp_path, python)
    # print's own write to the text stream is inside print: counted twice, I/O would pass
    # the whole cost of the program
    assert 0.6 < prints_io / prints_total < 1.0
    assert 0.2 < writes_io / writes_total < 1.0
    assert prints_io > writes_io  # print per number does more I/O work than one write each
    again = _net(PRINTS, b"30000\n", tmp_path, python)
    assert again == (prints_total, prints_io)  # instruction counts: bit-identical


def test_a_stripped_interpreter_counts_instructions_but_not_io(tmp_path, monkeypatch):
    total, io = _net(COMPUTE, b"100000\n", tmp_path, None)  # Debian's /usr/bin/python3
    assert total > 1e6 and io is None
    assert parse_callgrind("events: Ir\nfn=(1) 0x0000000000401000\n0 5\ntotals: 5\n").io is None
    monkeypatch.setenv("CODEOPT_EVIDENCE_PYTHON", "/usr/bin/python3")  # stripped: no I/O share
    assert counting_python() is None
    monkeypatch.setenv("CODEOPT_EVIDENCE_PYTHON", str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="CODEOPT_EVIDENCE_PYTHON: no interpreter at"):
        counting_python()


def _pack_generator(slug: str) -> str:
    return (PACK / slug / "generators" / "worst.py").read_text()


BIG_SUM_LINES = "n = int(input())\nt = 0\nfor _ in range(n):\n    t += int(input())\nprint(t)\n"
BIG_SUM_BULK = (
    "import sys\ndata = sys.stdin.buffer.read().split()\nn = int(data[0])\nt = 0\n"
    "for tok in data[1:n + 1]:\n    t += int(tok)\nprint(t)\n"
)
BIG_SUM_RENAMED = BIG_SUM_BULK.replace("t += int(tok)", "t = t + int(tok)")
PAIRS_LISTED = """n, k = map(int, input().split())
a = list(map(int, input().split()))
seen = []
count = 0
for x in a:
    count += seen.count(k - x)
    seen.append(x)
print(count)
"""
PAIRS_COUNTED = (
    PAIRS_LISTED.replace("seen = []", "seen = Counter()")
    .replace("seen.count(k - x)", "seen[k - x]")
    .replace("seen.append(x)", "seen[x] += 1")
)
PAIRS_COUNTED = "from collections import Counter\n" + PAIRS_COUNTED


@pytest.mark.parametrize(
    ("slug", "baseline", "optimized", "expected"),
    [
        ("big-sum", BIG_SUM_LINES, BIG_SUM_BULK, "io"),
        ("pair-sum-count", PAIRS_LISTED, PAIRS_COUNTED, "data_structure"),
        ("big-sum", BIG_SUM_BULK, BIG_SUM_RENAMED, "none"),
    ],
    ids=["io", "complexity", "none"],
)
def test_a_pair_measured_on_its_problems_generator_is_decided_by_its_evidence(
    slug, baseline, optimized, expected, tmp_path
):
    evidence = measure_pair(
        baseline, optimized, _pack_generator(slug), generator="worst.py", workdir=tmp_path
    )
    assert evidence.measured and evidence.outputs_agree, evidence.note
    assert len(evidence.sizes) >= 2
    again = Evidence.from_dict(evidence.as_dict())  # stored with the pair and read back
    verdict = decide(baseline, optimized, again)
    assert verdict.category == expected, verdict.rationale
    if expected == "io":
        assert evidence.io_saving_share > 0.6 and evidence.baseline.io_share > 0.4
    if expected == "data_structure":
        assert evidence.ratio_growth > 1.5 and evidence.exponent_drop > 0.5
    if expected == "none":
        assert 0.9 < evidence.ratio < 1.1


def test_callgrinds_total_agrees_with_the_engines_cachegrind_count(tmp_path):
    """Against a reference: the evidence's instruction total (callgrind, its own parser) and
    the timing engine's instruction mode (cachegrind's summary line) count the same run."""
    from execution.engine import Case, execute

    given = tmp_path / "in.txt"
    given.write_bytes(b"50000\n")
    answer = tmp_path / "ans.txt"
    answer.write_bytes(b"%d\n" % sum(i * i % 7 for i in range(50_000)))
    counted = count_instructions(COMPUTE, given, tmp_path / "c", None)
    report = execute(
        COMPUTE, "python", [Case("t", given, answer, "optimization")], mode="instructions",
        repeats=1, workdir=tmp_path,
    )  # fmt: skip
    assert report.verdict == "OK"
    reference = report.tests[0].instructions
    assert counted is not None and reference
    # the same run within 0.5%: the tools start the interpreter in slightly different boxes
    # (a writable /box, another out-file argument), about 0.1M instructions apart here
    assert abs(counted.total - reference) <= 0.005 * reference, (counted.total, reference)
