"""Numbers as a learner reads them: bytes with binary prefixes, seconds with a fitting unit, GB/s (10^9 B/s).

The output is the same in every language (Korean engineers write "ms", "GiB" and "GB/s" too), so it is computed
here once and cached with the rendered diagram.
"""

from __future__ import annotations

import math

KiB = 2**10
MiB = 2**20
GiB = 2**30
TiB = 2**40

_BINARY_PREFIXES = ((TiB, "TiB"), (GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB"))
_TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def significant(value: float, digits: int = 3) -> str:
    """``value`` rounded to ``digits`` significant digits, with thousands separators and no trailing zeros."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(digits - 1 - magnitude, 0)
    text = f"{value:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def exact(value: float) -> str:
    """A preset figure as written in its source (15.75, 1,800): no rounding."""
    return f"{value:,g}" if abs(value) < 1e6 else f"{value:,.0f}"


def format_bytes(size_bytes: float) -> str:
    """``1.5 MiB``, ``8 GiB``, ``512 B``: binary prefixes, as nccl-tests sizes are powers of two."""
    for factor, prefix in _BINARY_PREFIXES:
        if abs(size_bytes) >= factor:
            return f"{significant(size_bytes / factor)} {prefix}"
    return f"{significant(size_bytes)} B"


def format_seconds(seconds: float) -> str:
    """``2.39 ms``, ``850 µs``; 0 s for nothing at all."""
    if seconds == 0:
        return "0 s"
    for factor, unit in _TIME_UNITS:
        if abs(seconds) >= factor:
            return f"{significant(seconds / factor)} {unit}"
    return f"{significant(seconds / 1e-9)} ns"


def format_GBps(bandwidth_GBps: float) -> str:
    return f"{significant(bandwidth_GBps)} GB/s"
