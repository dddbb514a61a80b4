"""Hardware figures in chapter text come from the simulator's presets, so prose and diagrams cannot drift.

A chapter writes `{{link:nvlink4:bidirectional_GBps}} GB/s`; the placeholder is replaced by the preset's value
formatted for the page's language before the Markdown is parsed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, is_dataclass

from babel.numbers import format_decimal

from app import simulator

PLACEHOLDER = re.compile(r"\{\{\s*(?P<kind>[a-z]+):(?P<id>[a-z0-9-]+):(?P<field>[A-Za-z_]+)\s*\}\}")
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
    return format_decimal(value, format="#,##0.##", locale=language)


def substitute_figures(
    text: str, language: str, resolve: FigureResolver, report: Callable[[int, str], None]
) -> str:
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

        substituted = PLACEHOLDER.sub(replace, line)
        for leftover in ANY_DOUBLE_BRACE.findall(substituted):
            if not PLACEHOLDER.fullmatch(leftover):
                report(index, f"malformed figure placeholder {leftover} (expected {{{{link|system:ID:FIELD}}}})")
        lines[index] = substituted
    return "\n".join(lines)
