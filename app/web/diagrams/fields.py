"""Reading a diagram's form: every field is checked here, before anything reaches the simulator.

A bad field raises ``FieldError`` carrying a ``SimulationError``, so that a form problem and a model problem
reach the learner as the same kind of message (``app.web.simulation_messages``), next to the field.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.simulator import SimulationError
from app.web.diagrams.units import exact

Form = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Problem:
    field: str  # the form field to mark as invalid
    error: SimulationError
    series: int | None = None  # 1-based, for diagrams with several series of the same fields


class FieldError(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.error.message)
        self.problem = problem


def fail(field: str, message: str, *, code: str, allowed: str, series: int | None = None) -> FieldError:
    error = SimulationError(field, message, code=code, allowed=allowed)  # type: ignore[arg-type]
    return FieldError(Problem(field, error, series))


def from_model(field: str, error: SimulationError, series: int | None = None) -> FieldError:
    """A simulator error about ``error.parameter``, shown on the form field that fed it."""
    return FieldError(Problem(field, error, series))


def choice(form: Form, name: str, choices: Sequence[str]) -> str:
    value = form[name]
    if value not in choices:
        allowed = ", ".join(choices)
        raise fail(name, f"{name} must be one of: {allowed}", code="unknown_value", allowed=allowed)
    return value


def whole(form: Form, name: str, minimum: int, maximum: int) -> int:
    text = form[name].strip()
    allowed = f"{minimum}..{maximum}"
    try:
        value = int(text)
    except ValueError:
        raise fail(
            name, f"{name} must be a whole number between {minimum} and {maximum}", code="invalid_type", allowed=allowed
        ) from None
    if not minimum <= value <= maximum:
        raise fail(name, f"{name} must be between {minimum} and {maximum}", code="out_of_range", allowed=allowed)
    return value


def positive(form: Form, name: str, maximum: float, unit: str) -> float:
    """A number above 0 and at most ``maximum`` (in ``unit``, for the message)."""
    text = form[name].strip().replace(",", "")
    allowed = f"0 < {name} ≤ {exact(maximum)} {unit}".rstrip()
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= maximum):
        raise fail(
            name,
            f"{name} must be a number above 0 and at most {exact(maximum)} {unit}".rstrip(),
            code="out_of_range",
            allowed=allowed,
        )
    return value
