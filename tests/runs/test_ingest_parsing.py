"""The batch parser on its own: plain data in, columns or a BatchError out."""

from __future__ import annotations

import math

import pytest

from runs.ingest import BatchError, parse_batch, parse_value


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (1, 1.0),
        (0.5, 0.5),
        ("2.5", 2.5),
        ("Infinity", math.inf),
        ("-inf", -math.inf),
        ("+Infinity", math.inf),
    ],
)
def test_it_reads_numbers_and_infinity_spellings(raw, expected):
    assert parse_value(raw) == expected


@pytest.mark.parametrize("raw", [None, "NaN", "nan", float("nan")])
def test_null_and_nan_spellings_read_as_nan(raw):
    assert math.isnan(parse_value(raw))


@pytest.mark.parametrize("raw", ["fast", [], {}, True, "1,5"])
def test_it_rejects_what_is_not_a_number(raw):
    with pytest.raises(ValueError):
        parse_value(raw)


def test_it_rejects_a_body_without_points():
    with pytest.raises(BatchError) as error:
        parse_batch({"pts": []}, max_points=10)
    assert error.value.field_name == "points" and error.value.index is None


def test_it_rejects_a_point_that_is_not_an_object():
    with pytest.raises(BatchError) as error:
        parse_batch({"points": [{"step": 1, "key": "k", "value": 1}, [1, "k", 1]]}, max_points=10)
    assert error.value.index == 1


def test_it_accepts_an_integral_float_step():
    batch = parse_batch({"points": [{"step": 12.0, "key": "k", "value": 1}]}, max_points=10)
    steps, _ = batch.by_key()["k"]
    assert steps == [12] and isinstance(steps[0], int)


def test_it_rejects_a_step_javascript_cannot_represent():
    with pytest.raises(BatchError) as error:
        parse_batch({"points": [{"step": 2**60, "key": "k", "value": 1}]}, max_points=10)
    assert error.value.field_name == "step"


def test_it_rejects_a_key_with_a_control_character():
    with pytest.raises(BatchError) as error:
        parse_batch({"points": [{"step": 1, "key": "a\nb", "value": 1}]}, max_points=10)
    assert error.value.field_name == "key"


def test_a_repeated_point_keeps_its_last_value():
    batch = parse_batch(
        {"points": [{"step": 2, "key": "k", "value": 1}, {"step": 2, "key": "k", "value": 5}]},
        max_points=10,
    )
    assert batch.by_key() == {"k": ([2], [5.0])} and len(batch) == 1


def test_by_key_groups_and_sorts_steps():
    batch = parse_batch(
        {"points": [{"step": s, "key": k, "value": s} for s, k in [(3, "a"), (1, "b"), (1, "a")]]},
        max_points=10,
    )
    assert batch.by_key() == {"a": ([1, 3], [1.0, 3.0]), "b": ([1], [1.0])}
