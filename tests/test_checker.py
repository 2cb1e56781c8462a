"""The Kattis-style default output checker."""

from __future__ import annotations

from workers.execution.checker import CheckerSettings, check_output


def test_whitespace_layout_does_not_matter():
    assert check_output("1 2\n3\n", "1\n2   3").ok


def test_case_is_ignored_unless_the_problem_says_otherwise():
    assert check_output("YES", "yes").ok
    assert not check_output("YES", "yes", CheckerSettings(case_sensitive=True)).ok


def test_missing_and_extra_tokens_are_wrong_and_say_where():
    missing = check_output("1 2 3", "1 2")
    assert not missing.ok and "after 2 tokens" in missing.message
    extra = check_output("1", "1 2")
    assert not extra.ok and "1 extra" in extra.message
    wrong = check_output("1 2 3", "1 5 3")
    assert not wrong.ok and "token 2" in wrong.message


def test_float_tolerance_absolute_or_relative():
    absolute = CheckerSettings(float_absolute_tolerance=1e-6)
    assert check_output("0.5", "0.5000009", absolute).ok
    assert not check_output("0.5", "0.50001", absolute).ok
    relative = CheckerSettings(float_relative_tolerance=1e-6)
    assert check_output("1000000", "1000000.9", relative).ok
    assert not check_output("1", "1.00001", relative).ok
    assert not check_output("0.5", "0.5000001").ok  # no tolerance: exact tokens


def test_a_tolerance_does_not_make_words_numbers():
    assert not check_output("abc", "abd", CheckerSettings(float_absolute_tolerance=1.0)).ok


def test_validator_flags_are_read_as_kattis_does():
    from workers.execution.checker import parse_validator_flags

    settings = parse_validator_flags("float_tolerance 1e-6 case_sensitive")
    assert settings.case_sensitive
    assert settings.float_absolute_tolerance == settings.float_relative_tolerance == 1e-6
    assert parse_validator_flags("").has_float_tolerance is False
    import pytest

    with pytest.raises(ValueError, match="unknown flag"):
        parse_validator_flags("fuzzy")


def test_space_change_sensitive_compares_whitespace_runs():
    strict = CheckerSettings(space_change_sensitive=True)
    assert check_output("1 2\n", "1 2\n", strict).ok
    assert not check_output("1 2\n", "1  2\n", strict).ok
