"""Reading a diagram's form: every field is checked here, before anything reaches the simulator.

A bad field raises ``FieldError`` with a ``Problem``: the field to mark, the rule it broke (``kind``) and the
rule's numbers as language-neutral text. ``app.diagrams.problems`` turns it into a sentence in the learner's
language that names the field by its label ("Buffer to move"), never by its form name. The ``SimulationError``
inside keeps the English sentence and the code for logs and tests.

Numbers may be typed with a decimal comma, read as the quiz reads them (``app.numbers``): "2,4" is 2.4 and
"1,024" is 1024. Anything else with a comma is not a number, and the message shows both ways to write one.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.diagrams.units import TiB, exact
from app.numbers import number_text
from app.simulator import SimulationError
from app.simulator.errors import ErrorCode

Form = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Problem:
    field: str  # the form field to mark as invalid
    error: SimulationError
    series: int | None = None  # 1-based, for diagrams with several series of the same fields
    kind: str = "choice"  # the rule that was broken: a key of problems.RULES
    values: Mapping[str, str] = dataclasses.field(default_factory=dict)  # the rule's numbers: {"high": "7"}


class FieldError(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.error.message)
        self.problem = problem


def fail(
    name: str,
    message: str,
    *,
    code: ErrorCode,
    allowed: str,
    kind: str,
    values: Mapping[str, str] | None = None,
    series: int | None = None,
) -> FieldError:
    error = SimulationError(name, message, code=code, allowed=allowed)
    return FieldError(Problem(name, error, series, kind, dict(values or {})))


def from_model(name: str, error: SimulationError, series: int | None = None) -> FieldError:
    """A simulator error about ``error.parameter``, shown on the form field that fed it."""
    return FieldError(Problem(name, error, series, "model"))


def choice(form: Form, name: str, choices: Sequence[str]) -> str:
    value = form[name]
    if value not in choices:
        allowed = ", ".join(choices)
        raise fail(name, f"{name} must be one of: {allowed}", code="unknown_value", allowed=allowed, kind="choice")
    return value


def whole(form: Form, name: str, minimum: int, maximum: int) -> int:
    text = form[name].strip()
    allowed = f"{minimum}..{maximum}"
    values = {"low": str(minimum), "high": f"{maximum:,}"}
    try:
        value = int(text)
    except ValueError:
        raise fail(
            name,
            f"{name} must be a whole number between {minimum} and {maximum}",
            code="invalid_type",
            allowed=allowed,
            kind="whole",
            values=values,
        ) from None
    if not minimum <= value <= maximum:
        raise fail(
            name,
            f"{name} must be between {minimum} and {maximum}",
            code="out_of_range",
            allowed=allowed,
            kind="whole",
            values=values,
        )
    return value


def canonical_number(text: str) -> str:
    """How a number the learner typed is written back into addresses: "2,4" -> "2.4", "1,024" -> "1024"."""
    value = number_text(text)
    return format(value, ".15g") if math.isfinite(value) else text


def limit(maximum: float, unit: str) -> str:
    """An upper limit as the form's hint and the message write it: "549.76 B", "3,600,000 ms"."""
    return f"{exact(maximum)} {unit}".rstrip()


def positive(form: Form, name: str, maximum: float, unit: str) -> float:
    """A number above 0 and at most ``maximum`` (in ``unit``, for the message)."""
    value = number_text(form[name])
    high = limit(maximum, unit)
    allowed = f"0 < {name} ≤ {high}"
    if not math.isfinite(value):
        raise fail(
            name, f"{name} must be a number such as 2.5 or 2,5", code="invalid_type", allowed=allowed, kind="number"
        )
    if not 0 < value <= maximum:
        raise fail(
            name,
            f"{name} must be a number above 0 and at most {high}",
            code="out_of_range",
            allowed=allowed,
            kind="above_zero",
            values={"high": high},
        )
    return value


def tebibytes(size_bytes: int) -> str:
    """A byte limit as the form's hint and the message write it: "1 TiB"."""
    return f"{exact(size_bytes / TiB)} TiB"


def size_in_bytes(form: Form, units: Mapping[str, int], maximum_bytes: int) -> tuple[int, float, str]:
    """The ``size`` field in the chosen ``unit``: (bytes, the number typed, the unit), from 1 byte to the maximum."""
    unit = choice(form, "unit", tuple(units))
    factor = units[unit]
    size = number_text(form["size"])
    high = tebibytes(maximum_bytes)
    in_unit = f"{exact(maximum_bytes / factor)} {unit}"
    values = {"high": high if unit == "TiB" else f"{high} ({in_unit})"}
    allowed = f"1 B ≤ size ≤ {in_unit}"
    if not math.isfinite(size):
        raise fail(
            "size", "size must be a number such as 2.5 or 2,5", code="invalid_type", allowed=allowed, kind="number"
        )
    size_bytes = round(size * factor) if 0 < size <= maximum_bytes / factor else 0
    if not 1 <= size_bytes <= maximum_bytes:
        raise fail(
            "size",
            f"size must be at least 1 byte and at most {in_unit}",
            code="out_of_range",
            allowed=allowed,
            kind="bytes",
            values=values,
        )
    return size_bytes, size, unit
