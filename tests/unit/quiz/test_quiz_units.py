"""Quantities a learner types, normalised to base units; what cannot be an answer is refused with a reason."""

from __future__ import annotations

import math

import pytest

from app.quiz.units import MAGNITUDES, QuantityError, parse_quantity, quantity_from_parts, unit_named, written
from app.simulator.models import Dimension
from tests.unit.quiz.helpers import real_catalog


@pytest.mark.parametrize(
    ("text", "base", "dimension"),
    [
        ("3.9 ms", 3.9e-3, Dimension.TIME),
        ("0.0039 s", 3.9e-3, Dimension.TIME),
        ("3.9ms", 3.9e-3, Dimension.TIME),
        ("3900 us", 3.9e-3, Dimension.TIME),
        ("3900 µs", 3.9e-3, Dimension.TIME),
        ("3.9 밀리초", 3.9e-3, Dimension.TIME),
        ("450 GB/s", 450e9, Dimension.RATE),
        ("3.6 Tb/s", 450e9, Dimension.RATE),
        ("3,600 Gb/s", 450e9, Dimension.RATE),
        ("450 GBps", 450e9, Dimension.RATE),
        ("1 GiB/s", 2**30, Dimension.RATE),
        ("4.5e2 GB/s", 450e9, Dimension.RATE),
        ("2,4 ms", 2.4e-3, Dimension.TIME),  # a decimal comma, as the diagrams read it
        ("2,45ms", 2.45e-3, Dimension.TIME),
        ("0,5 s", 0.5, Dimension.TIME),
        ("1,024 GB/s", 1024e9, Dimension.RATE),  # thousands
        ("12,345.5 MB/s", 12345.5e6, Dimension.RATE),
    ],
)
def test_quantities_are_normalised_to_base_units(text: str, base: float, dimension: Dimension) -> None:
    quantity = parse_quantity(text)
    assert quantity.base_value == pytest.approx(base)
    assert quantity.unit.dimension == dimension


def test_a_bare_number_takes_the_default_unit() -> None:
    assert parse_quantity("2.39", default_unit="ms").base_value == pytest.approx(2.39e-3)
    assert quantity_from_parts(2.39, None, "ms").base_value == pytest.approx(2.39e-3)
    assert quantity_from_parts(2.39, "s", "ms").base_value == pytest.approx(2.39)
    assert quantity_from_parts("2390 us", None, "ms").base_value == pytest.approx(2.39e-3)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "not_a_number"),
        ("fast", "not_a_number"),
        ("3.9 parsecs", "unknown_unit"),
        ("nan ms", "not_a_number"),
        ("1e999 ms", "not_a_number"),
        ("3.9", "missing_unit"),
        ("9" * 80, "too_long"),
        ("3.9 GB/h", "unknown_unit"),
        ("2,4567 ms", "ambiguous_comma"),  # neither a decimal comma nor thousands: not guessed
        ("0,125 s", "ambiguous_comma"),
        ("1,2,3 GB/s", "ambiguous_comma"),
        ("2, 4 ms", "ambiguous_comma"),
        ("1,000.5.3", "malformed_number"),  # the number is the problem, not a unit ".3"
        ("1,000.5.3 ms", "malformed_number"),
        ("1.2.3 µs", "malformed_number"),
    ],
)
def test_malformed_quantities_are_refused_with_a_reason(text: str, code: str) -> None:
    with pytest.raises(QuantityError) as raised:
        parse_quantity(text)
    assert raised.value.code == code


@pytest.mark.parametrize(
    ("value", "unit"),
    [
        (1e30, "ms"),  # the API form: a number and a unit
        (-1e30, "ms"),
        (1e30, "GB/s"),
        (8e18, "B/s"),
        (1.1e7, "s"),  # just beyond 10^7 s (115 days)
        (1e-20, "s"),  # tiny, but not zero
        (1e-6, "B/s"),
        (5e-324, "ns"),
        ("1e30 ms", None),  # one string
        ("1e30", None),  # with the question's unit
        ("0.000000000000001 s", None),
        ("1,000,000,000 Pb/s", None),  # 1.25e23 B/s
    ],
)
def test_magnitudes_beyond_any_answer_are_refused(value: float | str, unit: str | None) -> None:
    with pytest.raises(QuantityError) as raised:
        quantity_from_parts(value, unit, "ms")
    assert raised.value.code == "out_of_range"
    if isinstance(value, str):
        with pytest.raises(QuantityError, match="out_of_range"):
            parse_quantity(value, default_unit="ms")


@pytest.mark.parametrize("dimension", list(MAGNITUDES))
def test_the_magnitude_bounds_themselves_are_answers(dimension: Dimension) -> None:
    smallest, largest = MAGNITUDES[dimension]
    base_unit = {
        Dimension.TIME: "s",
        Dimension.RATE: "B/s",
        Dimension.SIZE: "B",
        Dimension.RATIO: "×",
        Dimension.COUNT: "GPUs",
    }[dimension]
    for value in (smallest, largest, -largest, 0.0):
        assert quantity_from_parts(value, base_unit, base_unit).base_value == value
    for value in (largest * 1.001, smallest / 1.001):
        with pytest.raises(QuantityError, match="out_of_range"):
            quantity_from_parts(value, base_unit, base_unit)


def test_every_answer_in_the_banks_is_within_the_magnitudes() -> None:
    """The bound refuses nothing a question can ask for: every drawable answer, in base units, lies inside."""
    for quiz in real_catalog():
        for question in quiz.questions:
            if question.type != "numeric":
                continue
            smallest, largest = MAGNITUDES[unit_named(question.unit or "").dimension]
            for drawn in question.combinations():
                assert smallest <= abs(question.compute(drawn).value) <= largest, (question.id, drawn)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, True])
def test_non_numbers_in_the_api_form_are_refused(value: float) -> None:
    with pytest.raises(QuantityError) as raised:
        quantity_from_parts(value, "ms", "ms")
    assert raised.value.code == "not_a_number"


@pytest.mark.parametrize("typed", ["us", "µs", "μs", "usec", "마이크로초"])
def test_microseconds_are_written_with_the_micro_sign_whatever_was_typed(typed: str) -> None:
    assert unit_named(typed).symbol == "µs"
    assert written(typed) == "µs"
    assert parse_quantity("3", typed).unit.symbol == "µs"


def test_a_unit_the_grader_does_not_know_is_written_as_it_is() -> None:
    assert written("GB/s") == "GB/s"
    assert written("parsecs") == "parsecs"
