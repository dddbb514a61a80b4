"""Hardware figures in chapter text come from the simulator, so prose, diagrams and quizzes cannot drift.

A chapter writes `{{link:nvlink4:bidirectional_GBps}} GB/s` for a preset's figure, or
`{{calc:collective_time:ms|op=all_reduce,message_bytes=1GiB,system=dgx-h100,algorithm=ring,mode=ideal}} ms` for
a worked example computed by one of the simulator's named models (the same ones quiz answers use). Each
placeholder is replaced by its value formatted for the page's language before the Markdown is parsed.

A calibrated figure is a model's estimate of what nccl-tests would measure, and it carries the model's expected
error for that query (``app.simulator.accuracy``). Where that error is above 5 % the figure is shown with it,
"≈ 42 µs (± 15 %)", the error placed after the unit the chapter writes next to the placeholder; a calibrated
figure with such an error and no unit right after it is a content error, since it could not be quoted with its
error (ideal figures are exact and never carry one).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, is_dataclass

from app import simulator
from app.formatting import BINARY_PREFIXES, exact, significant
from app.simulator.models import MODELS, Dimension, ParameterValue, compute

PLACEHOLDER = re.compile(r"\{\{\s*(?P<kind>[a-z]+):(?P<id>[a-z0-9-]+):(?P<field>[A-Za-z_]+)\s*\}\}")
CALCULATION = re.compile(r"\{\{\s*calc:(?P<model>[a-z_]+):(?P<unit>[A-Za-z/%]+)\|(?P<parameters>[^{}]*?)\s*\}\}")
# Units a calculated figure may be shown in: base units per one of them.
CALC_UNITS: dict[str, tuple[Dimension, float]] = {
    "s": (Dimension.TIME, 1.0),
    "ms": (Dimension.TIME, 1e-3),
    "us": (Dimension.TIME, 1e-6),
    "GB/s": (Dimension.RATE, 1e9),
    "TB/s": (Dimension.RATE, 1e12),
    "Gb/s": (Dimension.RATE, 1e9 / 8),
    "%": (Dimension.RATIO, 1e-2),
}
_SIZE_SUFFIXES = {
    **dict(BINARY_PREFIXES),
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "B": 1,
}
_SIZE = re.compile(r"^(?P<count>\d+)(?P<suffix>[KMGT]i?B|B)$")
ANY_DOUBLE_BRACE = re.compile(r"\{\{.*?\}\}")
# A calculation and the unit the chapter writes after it ("{{calc:...:us|...}} µs"), so that an error can follow.
QUOTED_CALCULATION = re.compile(
    CALCULATION.pattern + r"(?P<shown_unit>[ \u00a0]?(?:µs|us|ns|ms|s|GB/s|TB/s|Gb/s|%)(?![A-Za-z/]))?"
)
# Below this expected error a calibrated figure is shown as a plain number.
SHOWN_ERROR_ABOVE_PERCENT = 5.0

FigureResolver = Callable[[str, str, str], int | float | str]


class UnknownFigureError(LookupError):
    pass


def simulator_figure(kind: str, preset_id: str, field: str) -> int | float | str:
    """The value of `field` on the link or system preset `preset_id`."""
    presets: dict[str, object]
    if kind == "link":
        presets = dict(simulator.LINKS)
    elif kind == "system":
        presets = dict(simulator.SYSTEMS)
    else:
        raise UnknownFigureError(f"unknown figure kind '{kind}' (use link or system)")
    preset = presets.get(preset_id)
    if preset is None:
        raise UnknownFigureError(f"unknown {kind} '{preset_id}' (known: {', '.join(presets)})")
    assert is_dataclass(preset)
    names = [item.name for item in fields(preset)]
    if field not in names:
        raise UnknownFigureError(f"{kind} '{preset_id}' has no figure '{field}' (known: {', '.join(names)})")
    value = getattr(preset, field)
    if value is None:
        raise UnknownFigureError(f"{kind} '{preset_id}' has no value for '{field}'")
    if not isinstance(value, int | float | str):
        raise UnknownFigureError(f"{kind} '{preset_id}' field '{field}' is not a number or text")
    return value


def format_figure(value: int | float | str, field: str, language: str) -> str:
    if isinstance(value, str):
        return value
    if field == "year":
        return str(value)
    return exact(value, language)


class CalculationError(ValueError):
    pass


def _parameter_value(text: str) -> ParameterValue:
    if text.isdigit():
        return int(text)
    size = _SIZE.match(text)
    if size is not None:
        return int(size["count"]) * _SIZE_SUFFIXES[size["suffix"]]
    return text


def calculate(model_name: str, unit: str, parameter_text: str) -> float:
    """The model's result in `unit`; raises CalculationError naming what is wrong."""
    return calculate_with_error(model_name, unit, parameter_text)[0]


def calculate_with_error(model_name: str, unit: str, parameter_text: str) -> tuple[float, float]:
    """The model's result in `unit` and its expected error in percent (0 for exact figures)."""
    model = MODELS.get(model_name)
    if model is None:
        raise CalculationError(f"unknown model '{model_name}' (known: {', '.join(MODELS)})")
    shown = CALC_UNITS.get(unit)
    if shown is None:
        raise CalculationError(f"unknown unit '{unit}' (known: {', '.join(CALC_UNITS)})")
    if shown[0] != model.dimension:
        raise CalculationError(f"'{model_name}' computes a {model.dimension}; '{unit}' does not measure it")
    parameters: dict[str, ParameterValue] = {}
    for item in filter(None, (part.strip() for part in parameter_text.split(","))):
        name, equals, text = item.partition("=")
        if not equals or not name.strip() or not text.strip():
            raise CalculationError(f"'{item}' is not name=value")
        parameters[name.strip()] = _parameter_value(text.strip())
    missing = model.required - set(parameters)
    unknown = set(parameters) - model.required - model.optional
    if missing or unknown:
        raise CalculationError(
            f"'{model_name}' needs {', '.join(sorted(model.required))}"
            f" and may take {', '.join(sorted(model.optional)) or 'nothing else'}"
            f" (missing: {', '.join(sorted(missing)) or 'none'}; unknown: {', '.join(sorted(unknown)) or 'none'})"
        )
    try:
        computed = compute(model_name, parameters)
    except simulator.SimulationError as error:
        raise CalculationError(f"the simulator refuses {parameters}: {error.message}") from None
    return computed.value / shown[1], computed.error_percent


def quoted_with_error(number: str, shown_unit: str, error_percent: float) -> str:
    """A calibrated figure with its expected error, "≈ 42 µs (± 15 %)" (the unit as the chapter wrote it)."""
    return f"≈ {number}{shown_unit} (± {error_percent:.0f} %)"


def substitute_figures(text: str, language: str, resolve: FigureResolver, report: Callable[[int, str], None]) -> str:
    """Replace every placeholder; report (0-based line, message) for each one that cannot be resolved."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if "{{" not in line:
            continue

        def replace(match: re.Match[str], line_index: int = index) -> str:
            try:
                value = resolve(match["kind"], match["id"], match["field"])
            except UnknownFigureError as error:
                report(line_index, str(error))
                return match[0]
            return format_figure(value, match["field"], language)

        def replace_calculation(match: re.Match[str], line_index: int = index) -> str:
            shown_unit = match["shown_unit"] or ""
            placeholder = match[0][: len(match[0]) - len(shown_unit)]
            try:
                value, error_percent = calculate_with_error(match["model"], match["unit"], match["parameters"])
            except CalculationError as error:
                report(line_index, f"{placeholder}: {error}")
                return match[0]
            number = significant(value, language)
            if error_percent <= SHOWN_ERROR_ABOVE_PERCENT:
                return number + shown_unit
            if not shown_unit:
                report(
                    line_index,
                    f"{placeholder}: a calibrated figure the model is expected to miss by {error_percent:.0f} % "
                    "here (its residuals against published sweeps) must be quoted with its error: write its "
                    "unit right after it, so that the page can show '≈ value unit (± error %)'",
                )
                return number
            return quoted_with_error(number, shown_unit, error_percent)

        substituted = PLACEHOLDER.sub(replace, QUOTED_CALCULATION.sub(replace_calculation, line))
        for leftover in ANY_DOUBLE_BRACE.findall(substituted):
            if not PLACEHOLDER.fullmatch(leftover) and not CALCULATION.fullmatch(leftover):
                report(
                    index,
                    f"malformed figure placeholder {leftover} "
                    "(expected {{link|system:ID:FIELD}} or {{calc:MODEL:UNIT|name=value,...}})",
                )
        lines[index] = substituted
    return "\n".join(lines)
