"""Numbers as a learner types them: one reading for the diagrams' fields and the quiz's answers.

A decimal comma is understood: a single comma followed by one or two digits ("2,4", "0,25") is a decimal
separator, and commas between groups of three digits ("1,024", "12,345.5") separate thousands, so "2,4" is 2.4
and "1,024" is 1024. Any other comma ("2,4567", "1,2,3", "0,125") could be read either way, so it is refused
as ambiguous instead of guessed; the message then shows both ways to write a number. Standard library only.
"""

from __future__ import annotations

import math
import re

DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d{1,2}")
THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d*)?")
# What may be a number written with commas, for splitting "2,4 ms" into its number and unit.
NUMBER_WITH_COMMAS = r"[+-]?(?:\d[\d,]*)?(?:\.\d+)?(?:[eE][+-]?\d+)?"


class AmbiguousCommaError(ValueError):
    """A comma that is neither a decimal comma nor a thousands separator."""


def with_decimal_point(text: str) -> str:
    """``text`` written with a decimal point and no thousands separators ("2,4" -> "2.4", "1,024" -> "1024");
    text without a comma is returned as it is. Raises AmbiguousCommaError for any other comma."""
    if "," not in text:
        return text
    if DECIMAL_COMMA.fullmatch(text):
        return text.replace(",", ".")
    if THOUSANDS.fullmatch(text):
        return text.replace(",", "")
    raise AmbiguousCommaError(text)


def number_text(text: str) -> float:
    """The number in ``text`` as a learner types it ("2.4", "2,4", "1,024", " 7 "); NaN when there is none."""
    try:
        return float(with_decimal_point(text.strip().replace("\u00a0", "").replace(" ", "")))
    except ValueError:
        return math.nan
