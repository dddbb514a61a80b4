"""Numbers as a learner reads them, in the page's language: one definition for chapters, quizzes and diagrams.

English and Korean write numbers alike (1,234.5), but Babel is asked anyway so another language would just work.
Magnitudes beyond what a reader can take in (and beyond what Babel's decimal context formats safely: a stored
answer of 1e30 once broke every page showing it) are written in scientific notation.
"""

from __future__ import annotations

import math
from functools import lru_cache

from babel.numbers import format_decimal

KiB = 2**10
MiB = 2**20
GiB = 2**30
TiB = 2**40
# Bytes per binary-prefixed unit, largest first: the one table the diagrams, chapters and quizzes read sizes by.
BINARY_PREFIXES = (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB))
_PLAIN_RANGE = (1e-9, 1e15)


@lru_cache(maxsize=4096)  # pure, and Babel's formatting is slow next to the rest of a fragment
def significant(value: float, language: str = "en", digits: int = 3) -> str:
    """`value` to `digits` significant digits (whole numbers stay whole), thousands separated, localised."""
    if value == 0:
        return "0"
    if not math.isfinite(value) or not _PLAIN_RANGE[0] <= abs(value) < _PLAIN_RANGE[1]:
        return f"{value:.{digits}g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    pattern = "#,##0." + "#" * decimals if decimals else "#,##0"
    return format_decimal(round(value, decimals), format=pattern, locale=language)


def exact(value: float, language: str = "en") -> str:
    """A figure as written in its source (15.75, 1,800): no rounding beyond two decimals."""
    if not math.isfinite(value) or abs(value) >= _PLAIN_RANGE[1]:
        return significant(value, language)  # Babel's decimal context cannot hold two decimals of 1e30
    return format_decimal(value, format="#,##0.##", locale=language)


def binary_size(size_bytes: float, language: str = "en") -> str:
    """`1.5 MiB`, `8 GiB`, `512 B`: binary prefixes, as nccl-tests sizes are powers of two."""
    for prefix, factor in BINARY_PREFIXES:
        if abs(size_bytes) >= factor:
            return f"{significant(size_bytes / factor, language)} {prefix}"
    return f"{significant(size_bytes, language)} B"


def exact_binary_size(size_bytes: int, language: str = "en") -> str:
    """A size shown exactly, in the largest binary unit that needs at most two decimals (1.5 GiB, 1,088 MiB):
    a quiz prompt must state the very number the answer is computed from."""
    for prefix, factor in BINARY_PREFIXES:
        if size_bytes >= factor and (size_bytes * 100) % factor == 0:
            return f"{exact(size_bytes / factor, language)} {prefix}"
    return f"{exact(size_bytes, language)} B"
