"""validator_flags of problem.yaml read as Kattis' default validator reads its arguments:
the same settings, and an error where it stops with a judge error."""

from __future__ import annotations

import pytest

from execution.checker import CheckerSettings, parse_validator_flags


def test_validator_flags_are_read_as_kattis_does():
    settings = parse_validator_flags("float_tolerance 1e-6 case_sensitive")
    assert settings.case_sensitive and not settings.space_change_sensitive
    assert settings.float_absolute_tolerance == settings.float_relative_tolerance == 1e-6
    assert parse_validator_flags("").has_float_tolerance is False
    settings = parse_validator_flags("float_tolerance 1e-6 float_absolute_tolerance 1")
    assert (settings.float_absolute_tolerance, settings.float_relative_tolerance) == (1, 1e-6)
    for flags in ("fuzzy", "Case_Sensitive", "float-tolerance"):
        with pytest.raises(ValueError, match="unknown flag"):
            parse_validator_flags(flags)
    with pytest.raises(ValueError, match="needs a number"):
        parse_validator_flags("case_sensitive float_relative_tolerance")


def test_a_tolerance_is_read_as_a_c_number():
    assert parse_validator_flags("float_tolerance 0x1p-2").float_absolute_tolerance == 0.25
    assert parse_validator_flags("float_tolerance 1e").float_absolute_tolerance == 1
    assert parse_validator_flags("float_tolerance +.5").float_relative_tolerance == 0.5


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e400", "1_0", "\uff11", "\u0661"])
def test_a_tolerance_that_is_not_a_finite_c_number_is_a_judge_error(value):
    with pytest.raises(ValueError, match="finite number"):
        parse_validator_flags(f"float_tolerance {value}")


def test_settings_refuse_a_tolerance_the_reference_could_not_have():
    with pytest.raises(ValueError, match="finite"):
        CheckerSettings(float_relative_tolerance=float("inf"))
