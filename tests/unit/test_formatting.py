"""app/formatting.py: numbers as a learner reads them; any float at all formats, and never raises."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.formatting import binary_size, exact, exact_binary_size, significant


@pytest.mark.parametrize(
    ("value", "language", "text"),
    [
        (4.175662, "en", "4.18"),
        (12345.678, "en", "12,346"),
        (12345.678, "ko", "12,346"),
        (0.000123456, "ko", "0.000123"),
        (2.386e-3, "en", "0.00239"),
        (0.0, "en", "0"),
        (-2.5, "en", "-2.5"),
        # Beyond what a reader takes in, and beyond Babel's decimal context: scientific notation.
        (1e30, "en", "1e+30"),
        (-1e30, "ko", "-1e+30"),
        (1e25, "en", "1e+25"),
        (1e15, "en", "1e+15"),
        (1e-10, "en", "1e-10"),
        (5e-324, "en", "4.94e-324"),
        (math.inf, "en", "inf"),
        (-math.inf, "en", "-inf"),
        (math.nan, "en", "nan"),
    ],
)
def test_significant_digits(value: float, language: str, text: str) -> None:
    assert significant(value, language) == text


def test_exact_figures_keep_up_to_two_decimals() -> None:
    assert exact(15.75) == "15.75"
    assert exact(1800) == "1,800"
    assert exact(0.125) == "0.12"
    assert exact(1e30) == "1e+30"  # Babel's two decimals of 1e30 need more digits than its context holds
    assert exact(math.inf) == "inf"


def test_sizes_in_binary_units() -> None:
    assert binary_size(1.5 * 2**20) == "1.5 MiB"
    assert binary_size(8 * 2**30) == "8 GiB"
    assert binary_size(512) == "512 B"
    assert exact_binary_size(3 * 2**29) == "1.5 GiB"
    assert exact_binary_size(1088 * 2**20) == "1,088 MiB"
    assert binary_size(1e30) == "9.09e+17 TiB"


@given(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["en", "ko"]))
def test_any_float_formats(value: float, language: str) -> None:
    for text in (significant(value, language), exact(value, language), binary_size(value, language)):
        assert isinstance(text, str)
        assert text
