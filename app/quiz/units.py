"""Quantities a learner types: "3.9 ms", "0.0039 s", "450 GB/s", "3.6 Tb/s", normalised to SI base units.

The course's answers are times (base unit: seconds), data rates (bytes per second), sizes (bytes: "MiB",
"GB"), shares ("%", or a ratio as "×") and counts ("GPUs", "nodes").
Bits and bytes are told apart by the case of the B, as everywhere in the course (GB/s = 10^9 bytes per
second, Gb/s = 10^9 bits per second); a rate written in bits is converted to bytes, so "3.6 Tb/s" and
"450 GB/s" are the same quantity. Decimal prefixes are powers of 1000, binary ones (Ki, Mi, Gi, Ti) of 1024.
The number is read as the diagrams read theirs (``app.numbers``): "2,4 ms" is 2.4 ms, "1,024 GB/s" is 1024 GB/s,
and a comma that could mean either ("2,4567 ms") is refused with a reason of its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from app.formatting import BINARY_PREFIXES
from app.numbers import NUMBER_WITH_COMMAS, AmbiguousCommaError, with_decimal_point
from app.simulator.models import Dimension


@dataclass(frozen=True, slots=True)
class Unit:
    symbol: str  # how the course writes it
    dimension: Dimension
    to_base: float  # base units per one of this unit


@dataclass(frozen=True, slots=True)
class Quantity:
    value: float  # as typed, in `unit`
    unit: Unit

    @property
    def base_value(self) -> float:
        return self.value * self.unit.to_base


class QuantityError(ValueError):
    """The text is not a quantity the grader understands; `code` names why (for a translated message)."""

    def __init__(self, code: str, text: str) -> None:
        super().__init__(f"{code}: {text!r}")
        self.code = code
        self.text = text


_TIME_UNITS: dict[str, float] = {
    "s": 1.0,
    "sec": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "초": 1.0,
    "ms": 1e-3,
    "msec": 1e-3,
    "밀리초": 1e-3,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "usec": 1e-6,
    "마이크로초": 1e-6,
    "ns": 1e-9,
    "나노초": 1e-9,
}
# How the course writes each time unit, whatever the content or the learner wrote: "µs" (the micro sign), never
# "us" or the Greek mu, in the input's suffix, the hint and the feedback alike.
_TIME_SYMBOLS: dict[float, str] = {1.0: "s", 1e-3: "ms", 1e-6: "µs", 1e-9: "ns"}
# A share or a ratio, and a number of things: the unit only says how the number is written.
_RATIO_UNITS: dict[str, float] = {
    "%": 0.01,
    "percent": 0.01,
    "퍼센트": 0.01,
    "×": 1.0,
    "x": 1.0,
    "times": 1.0,
    "배": 1.0,
}
_COUNT_UNITS: dict[str, float] = {
    name: 1.0 for name in ("GPUs", "GPU", "gpus", "gpu", "ranks", "rank", "nodes", "node", "개", "대", "노드")
}
_DECIMAL_PREFIXES: dict[str, float] = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15}
_BINARY_PREFIXES: dict[str, float] = {unit[:2].lower(): float(factor) for unit, factor in BINARY_PREFIXES}
_RATE = re.compile(r"^(?P<prefix>[kKmMgGtTpP]i?)?(?P<size>[Bb])(?P<rate>/s|ps|/sec)?$")
_NUMBER = re.compile(rf"^\s*(?P<number>{NUMBER_WITH_COMMAS})\s*(?P<unit>\S.*?)?\s*$")
MAX_TEXT_LENGTH = 64
# The magnitudes an answer may have, in base units: far beyond any answer in the course (115 days; an exabyte
# per second), and small enough that the grader's ratios and their formatting stay finite.
MAGNITUDES: dict[Dimension, tuple[float, float]] = {
    Dimension.TIME: (1e-12, 1e7),
    Dimension.RATE: (1e-3, 1e18),
    Dimension.SIZE: (1e-3, 1e21),
    Dimension.RATIO: (1e-9, 1e9),
    Dimension.COUNT: (1e-3, 1e12),
}


def unit_named(symbol: str) -> Unit:
    """The unit written `symbol` ("ms", "GB/s", "Gb/s", "GiB/s", "MiB", "%", "GPUs"); raises
    QuantityError("unknown_unit")."""
    cleaned = symbol.strip()
    seconds = _TIME_UNITS.get(cleaned, _TIME_UNITS.get(cleaned.lower()))
    if seconds is not None:
        return Unit(_TIME_SYMBOLS[seconds], Dimension.TIME, seconds)
    if cleaned in _RATIO_UNITS:
        return Unit(cleaned, Dimension.RATIO, _RATIO_UNITS[cleaned])
    if cleaned in _COUNT_UNITS:
        return Unit(cleaned, Dimension.COUNT, 1.0)
    match = _RATE.match(cleaned)
    if match is None:
        raise QuantityError("unknown_unit", symbol)
    prefix = (match["prefix"] or "").lower()
    multiplier = _BINARY_PREFIXES[prefix] if prefix.endswith("i") else _DECIMAL_PREFIXES[prefix]
    bytes_per_unit = multiplier / 8.0 if match["size"] == "b" else multiplier
    return Unit(cleaned, Dimension.RATE if match["rate"] else Dimension.SIZE, bytes_per_unit)


def written(symbol: str) -> str:
    """The unit as the course writes it ("us" -> "µs"); a symbol the grader does not know is returned as it is."""
    try:
        return unit_named(symbol).symbol
    except QuantityError:
        return symbol


def parse_quantity(text: str, default_unit: str | None = None) -> Quantity:
    """Parse "3.9 ms" (or "3.9" with `default_unit`); raises QuantityError with a code for each problem."""
    if len(text) > MAX_TEXT_LENGTH:
        raise QuantityError("too_long", text[:MAX_TEXT_LENGTH])
    match = _NUMBER.match(text)
    if match is None or not match["number"] or not any(c.isdigit() for c in match["number"]):
        raise QuantityError("not_a_number", text)
    try:
        value = float(with_decimal_point(match["number"]))
    except AmbiguousCommaError:
        raise QuantityError("ambiguous_comma", text) from None
    if not math.isfinite(value):
        raise QuantityError("not_a_number", text)
    if match["unit"] and match["unit"][0] in "0123456789.,":  # "1,000.5.3": the number is wrong, not the unit
        raise QuantityError("malformed_number", text)
    symbol = match["unit"] or default_unit
    if symbol is None:
        raise QuantityError("missing_unit", text)
    return _in_range(Quantity(value, unit_named(symbol)), text)


def _in_range(quantity: Quantity, text: str) -> Quantity:
    smallest, largest = MAGNITUDES[quantity.unit.dimension]
    magnitude = abs(quantity.base_value)
    # A typed value that is not zero is judged by itself too: 5e-324 ns underflows to 0 s in base units.
    if magnitude > largest or (quantity.value != 0 and magnitude < smallest):
        raise QuantityError("out_of_range", text)
    return quantity


def quantity_from_parts(value: float | str, unit: str | None, default_unit: str) -> Quantity:
    """The API sends either a number and a unit, or one string; a unit in the string wins over none."""
    if isinstance(value, str):
        return parse_quantity(f"{value} {unit}" if unit and not has_unit(value) else value, default_unit)
    if isinstance(value, bool) or not math.isfinite(value):
        raise QuantityError("not_a_number", str(value))
    return _in_range(Quantity(float(value), unit_named(unit) if unit else unit_named(default_unit)), str(value))


def has_unit(text: str) -> bool:
    match = _NUMBER.match(text)
    return bool(match and match["unit"])
