"""Speed percentile against human references, with ties, timeouts and missing references."""

from __future__ import annotations

from foundation.ranking import TIMED_OUT, Measured, percentile_on_test, speed_percentile


def refs(*costs_by_test: dict[str, float | None]) -> list[dict[str, Measured]]:
    return [
        {t: Measured(c if c is not None else 0.0, c is not None) for t, c in costs.items()}
        for costs in costs_by_test
    ]


def test_the_percentile_counts_faster_references_and_half_the_ties():
    assert percentile_on_test(1.0, [2.0, 3.0, 4.0, 5.0]) == 0.0
    assert percentile_on_test(6.0, [2.0, 3.0, 4.0, 5.0]) == 100.0
    assert percentile_on_test(3.0, [2.0, 3.0, 4.0, 5.0]) == 37.5  # (1 faster + 0.5 tie) / 4


def test_the_speed_percentile_averages_the_tests():
    references = refs({"a": 1.0, "b": 1.0}, {"a": 3.0, "b": 3.0})
    program = {"a": Measured(2.0, True), "b": Measured(4.0, True)}
    assert speed_percentile(program, references, ["a", "b"]) == 75.0  # (50 + 100) / 2


def test_a_failed_reference_is_not_a_reference_and_a_timed_out_one_is_slower():
    references = refs({"a": None}, {"a": 1.0})
    references.append({"a": Measured(TIMED_OUT, True)})
    program = {"a": Measured(2.0, True)}
    assert speed_percentile(program, references, ["a"]) == 50.0  # faster than the timeout only


def test_a_timed_out_program_scores_100_and_a_wrong_one_has_no_percentile():
    references = refs({"a": 1.0})
    assert speed_percentile({"a": Measured(TIMED_OUT, False)}, references, ["a"]) == 100.0
    assert speed_percentile({"a": Measured(0.5, False)}, references, ["a"]) is None


def test_tests_without_references_are_left_out():
    references = refs({"a": 1.0})
    program = {"a": Measured(0.5, True), "b": Measured(9.0, True)}
    assert speed_percentile(program, references, ["a", "b"]) == 0.0
    assert speed_percentile({"b": Measured(1.0, True)}, references, ["b"]) is None
