from __future__ import annotations

import pytest

from app.quiz.units import QuantityError, parse_quantity, quantity_from_parts
from app.simulator.models import Dimension


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
        ("3.9 GB", "unknown_unit"),
    ],
)
def test_malformed_quantities_are_refused_with_a_reason(text: str, code: str) -> None:
    with pytest.raises(QuantityError) as raised:
        parse_quantity(text)
    assert raised.value.code == code
