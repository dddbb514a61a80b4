"""Geometry shared by the diagrams: linear and logarithmic scales with readable ticks, and point lists.

Coordinates are rounded to 0.1 user unit: the SVG stays small and identical from one render to the next.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar


def px(value: float) -> float:
    return round(value, 1)


@dataclass(frozen=True, slots=True)
class ChartFrame:
    """A chart's layout (wide or narrow) in SVG user units: its size and the plot area's edges."""

    name: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int


class LayoutFrame(Protocol):
    @property
    def name(self) -> str: ...  # "wide" or "narrow"

    @property
    def width(self) -> int: ...


class Laid:
    """A figure drawn in one of its layouts: the templates read the layout's name and width from the figure."""

    __slots__ = ()
    frame: LayoutFrame

    @property
    def name(self) -> str:
        return self.frame.name

    @property
    def width(self) -> int:
        return self.frame.width


class Framed(Laid):
    """A chart drawn in one of its layouts: the templates read the layout's name and size from the chart."""

    __slots__ = ()
    frame: ChartFrame

    @property
    def height(self) -> int:
        return self.frame.height


@dataclass(frozen=True, slots=True)
class Tick:
    value: float
    position: float
    label: str
    major: bool = True


FrameT = TypeVar("FrameT", bound=ChartFrame)
SeriesT = TypeVar("SeriesT")


@dataclass(frozen=True, slots=True)
class SeriesChart(Framed, Generic[FrameT, SeriesT]):
    """Series drawn over a ticked x and y axis in one layout; a diagram adds what else its chart marks."""

    frame: FrameT
    series: tuple[SeriesT, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]


@dataclass(frozen=True, slots=True)
class LinearScale:
    domain_min: float
    domain_max: float
    range_min: float
    range_max: float

    def __call__(self, value: float) -> float:
        span = self.domain_max - self.domain_min or 1.0
        return px(self.range_min + (value - self.domain_min) / span * (self.range_max - self.range_min))

    def ticks(self, step: float, label: Callable[[float], str]) -> list[Tick]:
        count = math.floor((self.domain_max - self.domain_min) / step + 1e-9)
        values = [self.domain_min + i * step for i in range(count + 1)]
        return [Tick(v, self(v), label(v)) for v in values]


@dataclass(frozen=True, slots=True)
class LogScale:
    domain_min: float
    domain_max: float
    range_min: float
    range_max: float

    def __call__(self, value: float) -> float:
        low, high = math.log(self.domain_min), math.log(self.domain_max)
        fraction = (math.log(max(value, self.domain_min * 1e-3)) - low) / ((high - low) or 1.0)
        return px(self.range_min + fraction * (self.range_max - self.range_min))

    def decade_ticks(self, label: Callable[[float], str]) -> list[Tick]:
        """Major ticks at powers of ten, minor ones at 2x and 5x."""
        ticks = []
        exponent = math.floor(math.log10(self.domain_min))
        while 10.0**exponent <= self.domain_max * (1 + 1e-9):
            for multiple in (1, 2, 5):
                value = multiple * 10.0**exponent
                if self.domain_min * (1 - 1e-9) <= value <= self.domain_max * (1 + 1e-9):
                    ticks.append(Tick(value, self(value), label(value), major=multiple == 1))
            exponent += 1
        return ticks

    def power_of_two_ticks(self, label: Callable[[float], str], every: int) -> list[Tick]:
        """A tick at each power of two; every ``every``-th exponent is a labelled major tick."""
        ticks = []
        exponent = math.ceil(math.log2(self.domain_min) - 1e-9)
        while 2.0**exponent <= self.domain_max * (1 + 1e-9):
            value = 2.0**exponent
            major = exponent % every == 0
            ticks.append(Tick(value, self(value), label(value) if major else "", major=major))
            exponent += 1
        return ticks


def nice_step(span: float, target_ticks: int = 5) -> float:
    """A round tick step (1, 2 or 5 x 10^k) giving about ``target_ticks`` intervals over ``span``."""
    raw = span / max(target_ticks, 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1, 2, 2.5, 5, 10):
        if multiple * magnitude >= raw:
            return multiple * magnitude
    return 10 * magnitude


def nice_max(value: float, target_ticks: int = 5) -> tuple[float, float]:
    """The axis maximum (a multiple of the step just above ``value``) and its step."""
    if value <= 0:
        return 1.0, 0.2
    step = nice_step(value, target_ticks)
    return step * math.ceil(value / step - 1e-9), step


def points(pairs: Iterable[tuple[float, float]]) -> str:
    """An SVG ``points`` attribute."""
    return " ".join(f"{px(x):g},{px(y):g}" for x, y in pairs)


# The widest advance, in em, a character of each class has in the bold of the sans fonts the course's stack
# falls back to (DejaVu Sans, the widest of them, measured in Chromium): a text estimated with these never runs
# wider than drawn, whatever font the reader's system picks.
_NARROW = frozenset("iljIJ.,:;·'|! ")
_SEMI_NARROW = frozenset("frt()-–/")
_WIDE = frozenset("mw")
_WIDEST = frozenset("MW")


def _advance_em(character: str) -> float:
    if "\u1100" <= character <= "\u11ff" or "\u2e80" <= character <= "\u9fff" or "\uac00" <= character <= "\ud7af":
        return 1.0  # Hangul and CJK: a full em square
    if character in _NARROW:
        return 0.4
    if character in _SEMI_NARROW:
        return 0.5
    if character in _WIDEST:
        return 1.11
    if character in _WIDE:
        return 1.05
    if character.isdigit():
        return 0.7
    if character.isupper():
        return 0.86
    return 0.72


def text_width(text: str, font_size: float) -> float:
    """An upper bound of how wide ``text`` is drawn at ``font_size`` (user units), bold or not."""
    return sum(_advance_em(character) for character in text) * font_size
