"""The name printed on a certificate: what a learner may type, and its one stored form.

The name is NFC-normalised (so "é" typed as e + combining accent is the same name, and the signed bytes have one
spelling), runs of spaces become one space, and it must hold 1 to 100 characters with at least one letter of any
script. Refused, each with its own message: control characters (they break lines and terminals), the bidi
embedding, override and isolate controls (they can make a name display as something else: "Trojan Source"),
other invisible format characters except the zero-width (non-)joiners that Persian and Indic names need, line
and paragraph separators, unassigned or private-use code points, and characters that print as nothing though
Unicode calls them letters or marks (the Hangul fillers, of which U+3164 counts as a letter; the combining
grapheme joiner; variation selectors; the blank braille cell), so a name cannot print empty or carry an invisible
difference from a real one. Punctuation and symbols are allowed
("O'Brien", "Anne-Marie", "J. R. R."); every output escapes the name for its format, so "<" is harmless.
"""

from __future__ import annotations

import re
import unicodedata

MAX_NAME_LENGTH = 100
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
JOINERS = frozenset("\u200c\u200d")
BLANKS = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
_SPACES = re.compile(r"\s+")


class NameRejectedError(ValueError):
    """Why a name cannot be printed: "empty", "too_long", "no_letter", "control", "bidi", "invisible" or
    "blank"."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def normalise_name(raw: str) -> str:
    """The name as it will be printed and signed; raises NameRejectedError."""
    for character in raw:
        if character in BIDI_CONTROLS:
            raise NameRejectedError("bidi")
    for character in raw:
        category = unicodedata.category(character)
        if category == "Cc" and character not in "\t\n\r":
            raise NameRejectedError("control")
        if character in "\t\n\r" or category in ("Zl", "Zp"):
            raise NameRejectedError("control")
    name = _SPACES.sub(" ", unicodedata.normalize("NFC", raw)).strip()
    if not name:
        raise NameRejectedError("empty")
    if len(name) > MAX_NAME_LENGTH:
        raise NameRejectedError("too_long")
    for character in name:
        category = unicodedata.category(character)
        if category in ("Cf", "Co", "Cn", "Cs") and character not in JOINERS:
            raise NameRejectedError("invisible")
        if character in BLANKS:
            raise NameRejectedError("blank")
    if not any(unicodedata.category(character).startswith("L") for character in name):
        raise NameRejectedError("no_letter")
    return name
