"""Turning text into index terms, the same way for documents and queries.

Latin script (English, and the product names and abbreviations Korean text writes in it): case-folded words,
with a light plural stemmer (`switches` -> `switch`), and each hyphenated or underscored compound also indexed
joined (`all-reduce` and `all_reduce` are also `allreduce`). Queries add prefix matching on top (app/search/index.py),
so `infini` finds InfiniBand while it is being typed.

Hangul: overlapping character bigrams of every run of syllables (`대역폭은` -> 대역, 역폭, 폭은), plus each single
syllable for one-syllable queries. Korean attaches particles and endings to words (`대역폭은`, `대역폭을`, `대역폭의`)
and writes compounds with or without spaces (`레일 최적화`, `레일최적화`), so words split at spaces are not
the units a reader searches for; bigrams match any substring of two syllables or more, wherever the spaces are.
This is what Lucene's CJK analyzer does. A morphological analyzer (kiwipiepy, mecab-ko from PyPI) would give
fewer, more exact terms, but it brings a native library and a model of tens of megabytes to load at start-up,
and it still splits unknown technical compounds unpredictably; for a course of a few hundred sections, bigrams
verified against the text (a query's run must occur as written, index.py) lose nothing in precision.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

MAX_QUERY_CHARACTERS = 200
MAX_QUERY_UNITS = 12
HANGUL_RANGE = "\uac00-\ud7a3"
_PIECES = re.compile(rf"(?P<latin>[a-z0-9]+(?:[-_/][a-z0-9]+)*)|(?P<hangul>[{HANGUL_RANGE}]+)")
_SEPARATORS = re.compile(r"[-_/]")
_HANGUL = re.compile(f"[{HANGUL_RANGE}]")
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Compatibility forms folded (full-width letters, ligatures), case folded."""
    return unicodedata.normalize("NFKC", text).casefold()


@functools.cache  # the course has a few thousand distinct words; each is stemmed once
def stem(word: str) -> str:
    """English plurals to their singular, conservatively: `switches`, `links`, `topologies`, not `bus`, `class`."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def is_hangul(piece: str) -> bool:
    return bool(_HANGUL.match(piece))


def hangul_terms(run: str) -> list[str]:
    """The bigrams of a run of syllables; a single syllable is its own term."""
    if len(run) == 1:
        return [run]
    return [run[index : index + 2] for index in range(len(run) - 1)]


def latin_terms(compound: str) -> list[str]:
    parts = [stem(part) for part in _SEPARATORS.split(compound) if part]
    if len(parts) > 1:
        parts.append(stem("".join(parts)))
    return parts


def pieces(normalized: str) -> Iterator[str]:
    """The Latin compounds and Hangul runs of normalized text, in order."""
    for match in _PIECES.finditer(normalized):
        yield match.group(0)


def document_terms(text: str) -> list[str]:
    """Every index term of `text` (with repeats: their count is the term frequency)."""
    terms: list[str] = []
    previous_end, previous_last = -1, ""
    normalized = normalize(text)
    for match in _PIECES.finditer(normalized):
        piece = match.group(0)
        if match.lastgroup == "hangul":
            if len(piece) == 1:
                terms.append(piece)
            else:
                terms.extend([piece[index : index + 2] for index in range(len(piece) - 1)])
            if previous_last and match.start() - previous_end == 1 and normalized[previous_end].isspace():
                # Across one space too, so that "레일최적화" finds "레일 최적화" (spacing varies in Korean).
                terms.append(previous_last + piece[0])
            previous_last = piece[-1]
        else:
            if "-" in piece or "_" in piece or "/" in piece:
                terms.extend(latin_terms(piece))
            else:
                terms.append(stem(piece))
            previous_last = ""
        previous_end = match.end()
    return terms


def compact(text: str) -> str:
    """Normalized text without whitespace: what a Korean query's run is checked against."""
    return "".join(normalize(text).split())


@dataclass(frozen=True, slots=True)
class Query:
    """A query as searched: cleaned text and its units (each Latin word, each Hangul run)."""

    text: str
    truncated: bool  # the learner's text was longer than MAX_QUERY_CHARACTERS
    units: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.units


def clean(raw: str) -> str:
    """Control, format and unassigned characters become spaces; whitespace collapses."""
    kept = "".join(" " if unicodedata.category(character).startswith("C") else character for character in raw)
    return _SPACE.sub(" ", kept).strip()


def parse_query(raw: str) -> Query:
    # Cut before cleaning too: a 10,000-character query must cost no more than a 200-character one.
    text = clean(raw[: MAX_QUERY_CHARACTERS * 4])
    truncated = len(text) > MAX_QUERY_CHARACTERS or len(raw) > MAX_QUERY_CHARACTERS * 4
    text = text[:MAX_QUERY_CHARACTERS].strip()
    units: list[str] = []
    for piece in pieces(normalize(text)):
        if is_hangul(piece):
            units.append(piece)
        else:
            units.extend(part for part in _SEPARATORS.split(piece) if part)
    return Query(text=text, truncated=truncated, units=tuple(dict.fromkeys(units))[:MAX_QUERY_UNITS])
