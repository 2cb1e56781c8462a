"""Our checker gives Kattis' own default validator's verdict: problemtools' `default_validator`
(the C++ program, built, from the problemtools wheel, a dev dependency) and
`execution.checker` judge the same hand-made and seeded random cases, bad flags
included (the reference stops with a judge error where we raise ValueError).

CODEOPT_DEFAULT_VALIDATOR names another build of the reference to compare against (one
compiled from a problemtools checkout, a newer release)."""

from __future__ import annotations

import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from execution.checker import check_output, parse_validator_flags

GENERATED_CASES = 4000
SEED = 20260907
ACCEPT, REJECT, JUDGE_ERROR = "accept", "reject", "judge error"
EXIT_VERDICTS = {42: ACCEPT, 43: REJECT}  # anything else: a judge error (it aborts)


@dataclass(frozen=True)
class Case:
    answer: bytes
    output: bytes
    flags: str = ""


@pytest.fixture(scope="session")
def reference_validator() -> Path:
    named = os.environ.get("CODEOPT_DEFAULT_VALIDATOR")
    if named:
        return Path(named)
    try:
        from problemtools.run.tools import get_tool_path
    except ImportError:
        pytest.fail("problemtools, a dev dependency, is not installed: `make install`")
    path = get_tool_path("default_validator")
    if path is None:
        pytest.fail("this problemtools has no built default_validator")
    return Path(path)


def reference_verdicts(validator: Path, cases: list[Case], folder: Path) -> list[str]:
    """`default_validator INPUT ANSWER FEEDBACK_DIR [flags] < OUTPUT` for every case, four
    at a time (the judge input is not read by the default validator)."""
    judge_input = folder / "judge.in"
    judge_input.write_bytes(b"")

    def run(numbered: tuple[int, Case]) -> str:
        number, case = numbered
        answer, feedback = folder / f"{number}.ans", folder / f"{number}.feedback"
        answer.write_bytes(case.answer)
        feedback.mkdir()
        argv = [str(validator), str(judge_input), str(answer), str(feedback), *case.flags.split()]
        done = subprocess.run(argv, input=case.output, capture_output=True, timeout=30)
        return EXIT_VERDICTS.get(done.returncode, JUDGE_ERROR)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(run, enumerate(cases)))


def our_verdict(case: Case) -> str:
    try:
        settings = parse_validator_flags(case.flags)
    except ValueError:
        return JUDGE_ERROR
    return ACCEPT if check_output(case.answer, case.output, settings).ok else REJECT


# Hand-made: each family of cases problemtools' own validator tests cover, and each way the
# checker used to differ from the reference. (answer, output, flags, verdict)
HAND_MADE = [
    (b"hello world\n", b"hello world\n", "", ACCEPT),
    (b"hello world\n", b"hello there\n", "", REJECT),
    (b"Hello\n", b"hELLO", "", ACCEPT),
    (b"Hello\n", b"hello\n", "case_sensitive", REJECT),
    (b"Hello World!\n", b"", "", REJECT),
    (b"Hello World!\n", b" \n  \n\n", "", REJECT),
    (b"Hello World!\n", b"Hello \n", "", REJECT),
    (b"Hello World!\n", b"Hello World! and more", "", REJECT),
    (b"1\n", b"1.4\n", "float_absolute_tolerance 0.5", ACCEPT),
    (b"1\n", b"1.4\n", "float_absolute_tolerance 0.1", REJECT),
    (b"100\n", b"105\n", "float_relative_tolerance 0.1", ACCEPT),
    (b"100\n", b"105\n", "float_relative_tolerance 0.01", REJECT),
    (b"0\n", b"1e-300\n", "float_relative_tolerance 0.01", REJECT),
    (b"1\n", b"1.50001\n", "float_tolerance 0.5", REJECT),
    (
        b"PI is 3.14\n",
        b"PI is 3.5\n",
        "case_sensitive space_change_sensitive float_tolerance 0.5",
        ACCEPT,
    ),
    (b"1\n", b"1.4\xf0\x9f\x9a\x80\n", "float_absolute_tolerance 0.5", REJECT),
    (b"a" * 300, b"a" * 5 + b"A" + b"a" * 294, "case_sensitive", REJECT),
    (b"\x81" * 400, b"\x81" * 300 + b"\x82" * 100, "", REJECT),
    (b"hello\n world\n", b"hello\n world\n", "space_change_sensitive", ACCEPT),
    (b"hello\n world\n", b"hello\nworld\n", "space_change_sensitive", REJECT),
    (b"hello\nworld\n", b"hello\n world\n", "space_change_sensitive", REJECT),
    # an infinite or NaN answer compares as a string, whatever the tolerance
    (b"inf\n", b"0\n", "float_relative_tolerance 0.5", REJECT),
    (b"inf\n", b"12345\n", "float_tolerance 1e-6", REJECT),
    (b"inf\n", b"INF\n", "float_tolerance 1e-6", ACCEPT),
    (b"1e400\n", b"1e401\n", "float_tolerance 1e-6", REJECT),
    (b"nan\n", b"NaN\n", "float_tolerance 1e-6", ACCEPT),
    (b"nan\n", b"nan\n", "float_tolerance 1e-6 case_sensitive", ACCEPT),
    (b"5\n", b"inf\n", "float_tolerance 1e300", REJECT),
    # bytes, not text: invalid UTF-8 is compared, not replaced
    (b"\xff\n", b"\xfe\n", "", REJECT),
    (b"\xef\xbf\xbd\n", b"\xff\n", "", REJECT),
    (b"caf\xe9\n", b"caf\xe9\n", "case_sensitive", ACCEPT),
    # only the C locale's six whitespace bytes separate tokens
    (b"1 2\n", b"1\r\n2\t\v\f", "", ACCEPT),
    (b"1 2\n", b"1\xc2\xa02\n", "", REJECT),
    (b"1 2\n", b"1\xe2\x80\x832\n", "", REJECT),
    (b"1 2\n", b"1\x1c2\n", "", REJECT),
    (b"1 2\n", b"1\x852\n", "", REJECT),
    (b"1\n2\n", b"1\r\n2\r\n", "space_change_sensitive", REJECT),
    (b"1\r\n", b"1\r\n", "space_change_sensitive", ACCEPT),
    (b"1\n", b"1\n\n", "space_change_sensitive", REJECT),
    (b"1\n", b"1", "space_change_sensitive", REJECT),
    # ASCII case only
    (b"stra\xc3\x9fe\n", b"STRASSE\n", "", REJECT),
    (b"caf\xc3\xa9\n", b"CAF\xc3\x89\n", "", REJECT),
    (b"k\n", b"\xe2\x84\xaa\n", "", REJECT),
    # numbers as glibc's scanf reads them, not as Python's float() does
    (b"1000\n", b"1_000\n", "float_tolerance 1e-6", REJECT),
    (b"12\n", b"\xd9\xa1\xd9\xa2\n", "float_tolerance 1e-6", REJECT),
    (b"1\n", b"\xef\xbc\x91\n", "float_tolerance 1e-6", REJECT),
    (b"8\n", b"0x1p3\n", "float_tolerance 1e-6", ACCEPT),
    (b"1.5\n", b"0X1.8P+0\n", "float_tolerance 1e-6", ACCEPT),
    (b"0.5\n", b"+.5\n", "float_tolerance 1e-6", ACCEPT),
    (b"1\n", b"1e\n", "float_tolerance 1e-6", ACCEPT),
    (b"1\n", b"1e+\n", "float_tolerance 1e-6", ACCEPT),
    (b"0\n", b"0x.\n", "float_tolerance 1e-6", ACCEPT),
    (b"0\n", b"0x\n", "float_tolerance 1e-6", REJECT),
    (b"1\n", b"1ex\n", "float_tolerance 1e-6", REJECT),
    (b"0\n", b"1e-400\n", "float_absolute_tolerance 1e-300", ACCEPT),
    (b"1\n", b" 1.0 \n", "", REJECT),
    # a token ends, for comparing, at its first NUL byte
    (b"ab\x00cd\n", b"ab\x00xy\n", "case_sensitive", ACCEPT),
    (b"ab\n", b"ab\x00\n", "case_sensitive", ACCEPT),
    (b"1\x00\n", b"1.0000001\x00junk\n", "float_tolerance 1e-6", ACCEPT),
    # tolerances: negative ones are allowed and never pass; -0 passes equal values only
    (b"1\n", b"1.0\n", "float_tolerance -1", REJECT),
    (b"1\n", b"1.0\n", "float_tolerance -0", ACCEPT),
    (b"1\n", b"1.1\n", "float_absolute_tolerance 1 float_tolerance 1e-6", REJECT),
    (b"1\n", b"1.1\n", "float_tolerance 1e-6 float_absolute_tolerance 1", ACCEPT),
    (b"1\n", b"1.1\n", "float_tolerance 0x1p-2", ACCEPT),
    (b"1\n", b"1.1\n", "float_tolerance 1e", ACCEPT),  # 1e reads as 1
    # bad flags: the reference stops with a judge error
    (b"1\n", b"1\n", "float_tolerance inf", JUDGE_ERROR),
    (b"1\n", b"1\n", "float_tolerance nan", JUDGE_ERROR),
    (b"1\n", b"1\n", "float_relative_tolerance 1e400", JUDGE_ERROR),
    (b"1\n", b"1\n", "float_absolute_tolerance abc", JUDGE_ERROR),
    (b"1\n", b"1\n", "float_tolerance 1_0", JUDGE_ERROR),
    (b"1\n", b"1\n", "float_tolerance \uff11", JUDGE_ERROR),
    (b"1\n", b"1\n", "float_tolerance", JUDGE_ERROR),
    (b"1\n", b"1\n", "Case_Sensitive", JUDGE_ERROR),
    (b"1\n", b"1\n", "fuzzy", JUDGE_ERROR),
]


def test_hand_made_cases_get_the_verdict_the_reference_gives(reference_validator, tmp_path):
    cases = [Case(answer, output, flags) for answer, output, flags, _ in HAND_MADE]
    expected = [verdict for *_, verdict in HAND_MADE]
    reference = reference_verdicts(reference_validator, cases, tmp_path)
    ours = [our_verdict(case) for case in cases]
    assert [
        (case, want, got)
        for case, want, got in zip(cases, expected, reference, strict=True)
        if want != got
    ] == [], "the reference does not do what these cases say (another glibc? BZ #12701)"
    assert [
        (case, want, got)
        for case, want, got in zip(cases, expected, ours, strict=True)
        if want != got
    ] == []


# Seeded random cases. An answer is a few tokens with whitespace runs around them; the
# output is the answer with some tokens, runs or flags changed in one of many ways.

WORDS = [
    b"hello",
    b"Hello",
    b"HELLO",
    b"yes",
    b"YES",
    b"No",
    b"a",
    b"Z",
    b"x" * 70,
    b"caf\xc3\xa9",
    b"CAF\xc3\x89",
    b"stra\xc3\x9fe",
    b"STRASSE",
    b"\xc4\xb1",
    b"I",
    b"\xe2\x84\xaa",
    b"k",
    b"\xff",
    b"\xfe",
    b"\xef\xbf\xbd",
    b"\x80abc",
    b"a\x00b",
    b"a\x00c",
    b"\x00",
    b"\x00x",
    b"\x7f",
    b"\x1c",
    b"\xc2\xa0",
    b"\xc2\x85",
    b"\x85",
    b"inf",
    b"INF",
    b"-inf",
    b"+Infinity",
    b"infinity",
    b"nan",
    b"NaN",
    b"-nan",
    b"nan(1)",
    b"1e400",
    b"-1e400",
    b"1_000",
    b"\xd9\xa1\xd9\xa2",
    b"\xef\xbc\x91",
    b"0x",
    b"-",
    b".",
    b"+-1",
    b"1e5e",
    b"1.2.3",
    b"0x1g",
    b"e5",
    b".e5",
    b"0xp1",
    b"0x.p1",
    b"00x1",
]
QUIRKS = [
    b"1e",
    b"1e+",
    b"1e-",
    b"0e",
    b"1.5E",
    b"0x1p",
    b"0x1p-",
    b"0x.",
    b"-0x.",
    b"0x.8",
    b".5e",
    b"1.",
    b"+.5",
    b"-0",
    b"0x1.",
    b"00",
    b"007",
]
NUMBER_BYTES = b"0123456789.eEpPxX+-aAfFin"
RUNS = [b" ", b"\n", b"\r\n", b"\t", b"\v", b"\f", b"\r", b"  ", b" \n", b"\n\n"]
NOT_WHITESPACE = [b"\xc2\xa0", b"\xe2\x80\x83", b"\x1c", b"\x1f", b"\x85", b"\x00", b"\xe3\x80\x80"]
TOLERANCES = [
    "1e-6",
    "1e-9",
    "0.5",
    "1",
    "0",
    "-0",
    "-1",
    "1e-3",
    "0x1p-10",
    "+.5",
    "1e",
    "5e-324",
    "1e300",
    "1e-400",
    "2.5E-1",
]
BAD_TOLERANCES = ["inf", "-inf", "nan", "1e400", "abc", "1_0", "\uff11", "0x", "1e-6x", ""]
UNKNOWN_FLAGS = ["fuzzy", "Case_Sensitive", "float-tolerance", "case_sensitive=true"]


def random_value(rng: random.Random) -> float:
    kind = rng.randrange(5)
    if kind == 0:
        return float(rng.randint(-1000, 1000))
    if kind == 1:
        return rng.uniform(-10, 10)
    if kind == 2:
        return rng.choice([1.0, -1.0]) * 10.0 ** rng.uniform(-320, 308)
    if kind == 3:
        return rng.choice([0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308])
    return rng.randint(0, 10**6) / 1000


def spell(value: float, rng: random.Random) -> bytes:
    """`value` in one of the many ways a program might print it."""
    kind = rng.randrange(9)
    if kind == 0:
        text = repr(value)
    elif kind == 1:
        text = f"{value:.{rng.randint(1, 20)}g}"
    elif kind == 2:
        text = f"{value:.{rng.randint(0, 17)}{rng.choice('eE')}}"
    elif kind == 3 and abs(value) < 1e20:
        text = f"{value:.{rng.randint(0, 12)}f}"
    elif kind == 4:
        text = value.hex()
        text = text.upper() if rng.random() < 0.3 else text
        text = text.replace("p+0", "") if rng.random() < 0.3 else text
    elif kind == 5:
        text = rng.choice(["+", "0", "00", ""]) + repr(abs(value))
        text = ("-" + text.lstrip("+")) if value < 0 or str(value).startswith("-") else text
    elif kind == 6:
        text = f"{value:e}".replace("e+0", "e+000").replace("e-", "e-0")
    elif kind == 7:
        text = repr(value) + rng.choice(["e", "e+", "E-", ""])
    else:
        text = str(int(value)) if abs(value) < 1e30 else repr(value)
    return text.encode()


def random_token(rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.4:
        return spell(random_value(rng), rng)
    if roll < 0.5:
        return rng.choice(QUIRKS)
    if roll < 0.6:  # what scanf makes of strings of number characters
        return bytes(rng.choice(NUMBER_BYTES) for _ in range(rng.randint(1, 7)))
    return rng.choice(WORDS)


def random_flags(rng: random.Random) -> tuple[str, float | None]:
    """Flags, and the tolerance they set (for perturbing numbers near it)."""
    words: list[str] = []
    if rng.random() < 0.3:
        words.append("case_sensitive")
    if rng.random() < 0.3:
        words.append("space_change_sensitive")
    tolerance = None
    roll = rng.random()
    if roll < 0.6:
        spelled = rng.choice(TOLERANCES)
        tolerance = _value_of(spelled)
        for flag in rng.sample(
            ["float_tolerance", "float_absolute_tolerance", "float_relative_tolerance"],
            rng.randint(1, 2),
        ):
            words += [flag, spelled if rng.random() < 0.8 else rng.choice(TOLERANCES)]
    elif roll < 0.65:
        words += [rng.choice(["float_tolerance", "float_relative_tolerance"])]
        bad = rng.choice(BAD_TOLERANCES)
        words += [bad] if bad else []
    elif roll < 0.67:
        words.append(rng.choice(UNKNOWN_FLAGS))
    return " ".join(words), tolerance


def _value_of(tolerance: str) -> float:
    return float.fromhex(tolerance) if "x" in tolerance else float(tolerance.rstrip("e") or 0)


def changed_token(token: bytes, tolerance: float | None, rng: random.Random) -> bytes:
    roll = rng.random()
    if roll < 0.25 and tolerance is not None:
        try:
            value = float.fromhex(token.decode()) if b"x" in token.lower() else float(token)
        except (ValueError, OverflowError):
            value = random_value(rng)
        scale = rng.choice([0, 0.5, 0.999999, 1, 1.000001, 2, -1, 1e3])
        step = tolerance * rng.choice([1.0, abs(value)]) * scale
        return spell(value + step, rng)
    if roll < 0.4:
        return token.swapcase()
    if roll < 0.45:
        try:
            return token.decode().upper().encode()
        except UnicodeDecodeError:
            return token
    if roll < 0.6:
        try:
            return spell(float(token), rng)
        except ValueError:
            return random_token(rng)
    if roll < 0.65:
        return token + b"\x00" + rng.choice(WORDS)
    if roll < 0.7:
        return token.replace(b"\xff", b"\xfe").replace(b"\xef\xbf\xbd", b"\xff")
    if roll < 0.75:
        return token + rng.choice(NOT_WHITESPACE) + random_token(rng)
    return random_token(rng)


def generated_case(rng: random.Random) -> Case:
    flags, tolerance = random_flags(rng)
    tokens = [random_token(rng) for _ in range(rng.randint(0, 5))]
    runs = [rng.choice(RUNS) for _ in range(len(tokens) + 1)]
    runs[0] = runs[0] if rng.random() < 0.2 else b""
    answer = b"".join(run + token for run, token in zip(runs, tokens + [b""], strict=True))
    out_tokens = [
        changed_token(token, tolerance, rng) if rng.random() < 0.4 else token for token in tokens
    ]
    if out_tokens and rng.random() < 0.1:
        del out_tokens[rng.randrange(len(out_tokens))]
    if rng.random() < 0.1:
        out_tokens.insert(rng.randint(0, len(out_tokens)), random_token(rng))
    out_runs = list(runs[: len(out_tokens) + 1])
    out_runs += [b"\n"] * (len(out_tokens) + 1 - len(out_runs))
    if rng.random() < 0.3:
        where = rng.randrange(len(out_runs))
        out_runs[where] = rng.choice(RUNS + [b"", run_with_cr(out_runs[where])])
    output = b"".join(run + token for run, token in zip(out_runs, out_tokens + [b""], strict=True))
    return Case(answer, output, flags)


def run_with_cr(run: bytes) -> bytes:
    return run.replace(b"\n", b"\r\n")


def test_thousands_of_generated_cases_get_the_reference_verdict(reference_validator, tmp_path):
    rng = random.Random(SEED)
    cases = [generated_case(rng) for _ in range(GENERATED_CASES)]
    reference = reference_verdicts(reference_validator, cases, tmp_path)
    ours = [our_verdict(case) for case in cases]
    disagreements = [
        (case, want, got)
        for case, want, got in zip(cases, reference, ours, strict=True)
        if want != got
    ]
    assert disagreements[:10] == [], f"{len(disagreements)} of {len(cases)} cases differ"
    # the cases are worth something only if every verdict is common
    for verdict in (ACCEPT, REJECT, JUDGE_ERROR):
        assert reference.count(verdict) > GENERATED_CASES // 40, (verdict, reference.count(verdict))
