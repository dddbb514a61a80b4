"""Numbers as a learner reads them: bytes with binary prefixes, seconds with a fitting unit, GB/s (10^9 B/s).

The output is the same in every language (Korean engineers write "ms", "GiB" and "GB/s" too), so it is computed
here once and cached with the rendered diagram.
"""

from __future__ import annotations

from app.formatting import GiB, KiB, MiB, TiB, binary_size, exact, significant

__all__ = ["GiB", "KiB", "MiB", "TiB", "binary_size", "exact", "format_GBps", "format_seconds", "significant"]

_TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


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
