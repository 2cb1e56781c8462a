"""Where the product checks outputs (a run against the test's answer; the consensus stage of
dataset construction, between references) it compares the bytes written, undecoded: invalid
UTF-8 is not replaced, only the six ASCII whitespace bytes separate tokens, and only ASCII
letters match in either case."""

from __future__ import annotations

from pathlib import Path

from execution.checker import CheckerSettings
from execution.engine import Case, execute
from execution.sandbox import Limits
from problems.pipeline.consensus import Consensus, find_consensus

LIMITS = Limits(cpu_seconds=1, wall_seconds=3, memory_mb=256, output_mb=1)
PRINTS_FE = "import sys\nsys.stdout.buffer.write(b'\\xfe\\n')\n"


def test_a_run_printing_other_invalid_utf8_than_the_answer_is_a_wrong_answer(tmp_path):
    (tmp_path / "1.in").write_bytes(b"")
    (tmp_path / "1.ans").write_bytes(b"\xff\n")
    (tmp_path / "2.in").write_bytes(b"")
    (tmp_path / "2.ans").write_bytes(b"\xfe\r\n")  # \r\n is layout without space_change
    tests = [Case(name, tmp_path / f"{name}.in", tmp_path / f"{name}.ans") for name in "12"]
    report = execute(PRINTS_FE, "python", tests, limits=LIMITS)
    assert [result.verdict for result in report.tests] == ["WRONG_ANSWER", "OK"]
    assert "expected '\\xff', got '\\xfe'" in report.tests[0].message


def consensus_of(printed: dict[str, bytes], folder: Path, **checker) -> Consensus:
    outputs = {}
    for name, data in printed.items():
        outputs[name] = folder / f"{name}.out"
        outputs[name].write_bytes(data)
    return find_consensus(outputs, CheckerSettings(**checker), min_agree=2)


def test_references_printing_different_invalid_utf8_do_not_agree(tmp_path):
    printed = {"a": b"\xff 1.5\n", "b": b"\xfe 1.5\n", "c": b"\xff 1.5000001\n"}
    consensus = consensus_of(
        printed, tmp_path, float_absolute_tolerance=1e-6, float_relative_tolerance=1e-6
    )
    assert (consensus.agreeing, consensus.disagreeing) == (["a", "c"], ["b"])
    assert consensus.answer_path == tmp_path / "a.out"


def test_only_ascii_whitespace_separates_the_tokens_references_print(tmp_path):
    for separator in ("\N{NO-BREAK SPACE}", "\N{EM SPACE}", "\x1c", "\x85"):
        printed = {"a": b"1 2\n", "b": f"1{separator}2\n".encode(), "c": b"1\t\v2\r\n"}
        consensus = consensus_of(printed, tmp_path)
        assert (consensus.agreeing, consensus.disagreeing) == (["a", "c"], ["b"]), separator


def test_references_differing_in_the_case_of_a_non_ascii_letter_do_not_agree(tmp_path):
    printed = {"a": "café\n".encode(), "b": "CAFÉ\n".encode(), "c": "CAFé\n".encode()}
    consensus = consensus_of(printed, tmp_path)
    assert (consensus.agreeing, consensus.disagreeing) == (["a", "c"], ["b"])
    printed = {"a": b"k\n", "b": "\N{KELVIN SIGN}\n".encode(), "c": b"K\n"}
    consensus = consensus_of(printed, tmp_path)
    assert (consensus.agreeing, consensus.disagreeing) == (["a", "c"], ["b"])
