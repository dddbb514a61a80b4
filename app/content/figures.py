"""Hardware figures in chapter text come from the simulator, so prose, diagrams and quizzes cannot drift.

A chapter writes `{{link:nvlink4:bidirectional_GBps}} GB/s` for a preset's figure, or
`{{calc:collective_time:ms|op=all_reduce,message_bytes=1GiB,system=dgx-h100,algorithm=ring,mode=ideal}} ms` for
a worked example computed by one of the simulator's named models (the same ones quiz answers use). Each
placeholder is replaced by its value formatted for the page's language before the Markdown is parsed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, is_dataclass

from app import simulator
from app.formatting import exact, significant
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
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "B": 1,
}
_SIZE = re.compile(r"^(?P<count>\d+)(?P<suffix>[KMGT]i?B|B)$")
ANY_DOUBLE_BRACE = re.compile(r"\{\{.*?\}\}")

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
        value = compute(model_name, parameters).value
    except simulator.SimulationError as error:
        raise CalculationError(f"the simulator refuses {parameters}: {error.message}") from None
    return value / shown[1]


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
            try:
                value = calculate(match["model"], match["unit"], match["parameters"])
            except CalculationError as error:
                report(line_index, f"{match[0]}: {error}")
                return match[0]
            return significant(value, language)

        substituted = PLACEHOLDER.sub(replace, CALCULATION.sub(replace_calculation, line))
        for leftover in ANY_DOUBLE_BRACE.findall(substituted):
            if not PLACEHOLDER.fullmatch(leftover) and not CALCULATION.fullmatch(leftover):
                report(
                    index,
                    f"malformed figure placeholder {leftover} "
                    "(expected {{link|system:ID:FIELD}} or {{calc:MODEL:UNIT|name=value,...}})",
                )
        lines[index] = substituted
    return "\n".join(lines)
