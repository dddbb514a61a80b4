"""Typography the content renderer applies to text: numbers kept with their units, monospace columns kept aligned.

Both work on text a reader sees, never on markup: `bind_units` takes plain text (a Markdown text node, a title, a
summary), `align_wide_characters` the escaped HTML inside a code block, whose tags and entities are ASCII.
"""

from __future__ import annotations

import re
import unicodedata

NO_BREAK_SPACE = "\u00a0"
# Longest first, so that "GB/s" is not taken for "GB" followed by "/s".
UNITS: tuple[str, ...] = (
    "GB/s",
    "Gb/s",
    "TB/s",
    "Tb/s",
    "MB/s",
    "Mb/s",
    "PB/s",
    "GT/s",
    "Gbps",
    "GBps",
    "GHz",
    "MHz",
    "KiB",
    "MiB",
    "GiB",
    "TiB",
    "kB",
    "KB",
    "MB",
    "GB",
    "TB",
    "PB",
    "bytes",
    "byte",
    "B",
    "µs",
    "μs",
    "us",
    "ms",
    "ns",
    "ps",
    "s",
    "kW",
    "MW",
    "W",
    "km",
    "mm",
    "cm",
    "m",
    "GPUs",
    "GPU",
)
# A number (thousands separators, decimals, a range such as "150–250") that does not end a word like "H100", then
# one ordinary space, then a unit that no ASCII letter or digit continues: "450 GB/s로" still binds (a Korean particle
# follows the unit directly), "8 Bytes-per-lane" or "4 GPUDirect" do not.
_NUMBER_THEN_UNIT = re.compile(
    r"(?<![A-Za-z0-9_.,])(?P<number>\d+(?:[.,]\d+)*)"
    r" (?P<unit>" + "|".join(re.escape(unit) for unit in UNITS) + r")(?![A-Za-z0-9/])"
)
# A code block's columns are counted in characters, a wide (East Asian) character as two, as a terminal does.
WIDE_RUN_MAX = 16
_WIDE_CANDIDATES = re.compile(r"[\u1100-\U0002ffff]+")


def bind_units(text: str) -> str:
    """`text` with a no-break space between each number and its unit, so that "450 GB/s" never breaks apart."""
    if " " not in text:
        return text
    return _NUMBER_THEN_UNIT.sub(lambda match: f"{match['number']}{NO_BREAK_SPACE}{match['unit']}", text)


def is_wide(character: str) -> bool:
    return unicodedata.east_asian_width(character) in ("W", "F")


def align_wide_characters(code_html: str) -> str:
    """Wrap each run of wide characters in a span two columns wide per character (class `wide wide-N`).

    Monospace fonts rarely carry Hangul, so a browser draws it from a proportional fallback font whose syllables are
    neither one column nor two, and columns a Korean worked example lines up drift apart. The stylesheet gives
    `wide-N` a width of 2N `ch` (the monospace font's own column), whatever font the syllables come from.
    """

    def wrap(match: re.Match[str]) -> str:
        pieces: list[str] = []
        run: list[str] = []

        def flush() -> None:
            for start in range(0, len(run), WIDE_RUN_MAX):
                chunk = run[start : start + WIDE_RUN_MAX]
                pieces.append(f'<span class="wide wide-{len(chunk)}">{"".join(chunk)}</span>')
            run.clear()

        for character in match[0]:
            if is_wide(character):
                run.append(character)
            else:
                flush()
                pieces.append(character)
        flush()
        return "".join(pieces)

    return _WIDE_CANDIDATES.sub(wrap, code_html)
