"""Numbers as a learner types them (app/numbers.py): a decimal comma is a decimal, groups of three are thousands,
and any other comma is refused as ambiguous rather than guessed."""

from __future__ import annotations

import math

import pytest

from app.numbers import AmbiguousCommaError, number_text, with_decimal_point


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("2,4", "2.4"),
        ("-0,25", "-0.25"),
        ("1,024", "1024"),
        ("3,600,000", "3600000"),
        ("12,345.5", "12345.5"),
        ("2.4", "2.4"),
        ("7", "7"),
        ("4.5e2", "4.5e2"),
    ],
)
def test_a_comma_is_a_decimal_or_separates_thousands(text: str, plain: str) -> None:
    assert with_decimal_point(text) == plain
    assert number_text(text) == float(plain)


@pytest.mark.parametrize("text", ["2,4567", "1,2,3", "0,125", "12,34.5", "1,0245", ",5", "2,"])
def test_any_other_comma_is_ambiguous(text: str) -> None:
    with pytest.raises(AmbiguousCommaError):
        with_decimal_point(text)
    assert math.isnan(number_text(text))
