"""The Kattis default output checker: tokens, whitespace, case and numbers, on bytes. Which
bytes are whitespace and which letters match in either case: test_checking_compares_bytes.py."""

from __future__ import annotations

import pytest

from execution.checker import CheckerSettings, check_output

TOLERANT = CheckerSettings(float_absolute_tolerance=1e-6, float_relative_tolerance=1e-6)


def test_whitespace_layout_does_not_matter():
    assert check_output(b"1 2\n3\n", b"1\n2   3").ok
    assert check_output(b"1 2\n", b"\t1\r\n2\v\f\r").ok


def test_case_is_ignored_unless_the_problem_says_otherwise():
    assert check_output(b"YES", b"yes").ok
    assert not check_output(b"YES", b"yes", CheckerSettings(case_sensitive=True)).ok


def test_missing_and_extra_tokens_are_wrong_and_say_where():
    missing = check_output(b"1 2 3", b"1 2")
    assert not missing.ok and "after 2 tokens" in missing.message
    extra = check_output(b"1", b"1 2")
    assert not extra.ok and "1 extra" in extra.message
    wrong = check_output(b"1 2 3", b"1\n5 3")
    assert not wrong.ok and "token 2 (line 2, answer line 1)" in wrong.message
    assert "expected '2', got '5'" in wrong.message


def test_float_tolerance_absolute_or_relative():
    absolute = CheckerSettings(float_absolute_tolerance=1e-6)
    assert check_output(b"0.5", b"0.5000009", absolute).ok
    assert not check_output(b"0.5", b"0.50001", absolute).ok
    relative = CheckerSettings(float_relative_tolerance=1e-6)
    assert check_output(b"1000000", b"1000000.9", relative).ok
    assert not check_output(b"1", b"1.00001", relative).ok
    assert not check_output(b"0.5", b"0.5000001").ok  # no tolerance: exact tokens


def test_a_tolerance_does_not_make_words_numbers():
    assert not check_output(b"abc", b"abd", CheckerSettings(float_absolute_tolerance=1.0)).ok
    wrong = check_output(b"1.5", b"abc", TOLERANT)
    assert not wrong.ok and "expected a number near '1.5'" in wrong.message


def test_space_change_sensitive_compares_whitespace_runs():
    strict = CheckerSettings(space_change_sensitive=True)
    assert check_output(b"1 2\n", b"1 2\n", strict).ok
    wrong = check_output(b"1 2\n", b"1  2\n", strict)
    assert not wrong.ok and "before token 2" in wrong.message


def test_space_change_sensitive_sees_carriage_returns():
    strict = CheckerSettings(space_change_sensitive=True)
    assert not check_output(b"1\n2\n", b"1\r\n2\r\n", strict).ok
    assert not check_output(b"1\n", b"1\n\n", strict).ok
    assert not check_output(b"1\n", b"1", strict).ok
    assert check_output(b"1\r\n", b"1\r\n", strict).ok


def test_an_infinite_or_nan_answer_compares_as_a_word_whatever_the_tolerance():
    relative = CheckerSettings(float_relative_tolerance=0.5)
    assert not check_output(b"inf", b"12345", relative).ok
    assert not check_output(b"1e400", b"1e401", relative).ok  # overflows: not a number
    assert check_output(b"inf", b"INF", relative).ok
    assert check_output(b"nan", b"NaN", relative).ok
    assert not check_output(b"5", b"inf", CheckerSettings(float_absolute_tolerance=1e300)).ok


def test_numbers_read_as_glibc_reads_them_not_as_python_does():
    assert not check_output(b"1000", b"1_000", TOLERANT).ok
    assert not check_output(b"12", "\u0661\u0662".encode(), TOLERANT).ok
    assert not check_output(b"1", "\uff11".encode(), TOLERANT).ok
    assert check_output(b"8", b"0x1p3", TOLERANT).ok
    assert check_output(b"1.5", b"0X1.8P+0", TOLERANT).ok
    assert check_output(b"0.5", b"+.5", TOLERANT).ok
    assert check_output(b"0", b"1e-400", CheckerSettings(float_absolute_tolerance=1e-300)).ok


def test_a_number_cut_after_its_exponent_letter_reads_as_glibc_reads_it():
    # glibc's scanf (before its BZ #12701 fix) keeps what strtod made of the prefix
    assert check_output(b"1", b"1e", TOLERANT).ok
    assert check_output(b"1", b"1e+", TOLERANT).ok
    assert check_output(b"0", b"0x.", TOLERANT).ok
    assert not check_output(b"0", b"0x", TOLERANT).ok
    assert not check_output(b"1", b"1ex", TOLERANT).ok


def test_a_token_is_compared_up_to_its_first_nul_byte():
    sensitive = CheckerSettings(case_sensitive=True)
    assert check_output(b"ab\x00cd", b"ab\x00xy", sensitive).ok
    assert check_output(b"ab", b"ab\x00", sensitive).ok
    assert check_output(b"1\x00", b"1.0000001\x00junk", TOLERANT).ok


def test_text_is_refused_so_no_caller_decodes_before_comparing():
    with pytest.raises(TypeError, match="read_bytes"):
        check_output("1", "1")  # type: ignore[arg-type]
