"""The glossary (content/glossary.yaml): terms in every language, each pointing at the section that teaches it.

Parsed before the chapters (their first use of each term links here, app/content/termlinks.py) and checked
against them afterwards: every `section` must be a heading of a published chapter in every language, every
`related` id an entry, and no spelling may name two entries in one language, or a chapter could not tell which
one its word means.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import Field

from app.content.errors import ContentProblem
from app.content.frontmatter import ContentProblemsError, line_of, parse_yaml
from app.content.models import Course
from app.i18n import LANGUAGES
from app.validation import KEBAB_ID_PATTERN, StrictModel

GLOSSARY_FILE = "glossary.yaml"
SECTION_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*#[a-z0-9]+(?:-[a-z0-9]+)*$"
_PARENTHESIS = re.compile(r"^(?P<outer>[^()]+?)\s*\((?P<inner>[^()]+)\)$")

# Hangul syllables U+AC00..U+D7A3 are ordered by initial consonant, 588 syllables each (21 vowels × 28 finals).
_HANGUL_FIRST, _HANGUL_LAST, _PER_INITIAL = 0xAC00, 0xD7A3, 588
_INITIALS = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
# A Korean index groups the tense consonants with their plain ones (ㄲ under ㄱ), as dictionaries do.
_INDEX_INITIAL = {"ㄲ": "ㄱ", "ㄸ": "ㄷ", "ㅃ": "ㅂ", "ㅆ": "ㅅ", "ㅉ": "ㅈ"}
DIGITS_INITIAL = "0–9"


class _Localized(StrictModel):
    en: str = Field(min_length=1)
    ko: str = Field(min_length=1)


class _LocalizedList(StrictModel):
    en: list[str] = Field(default_factory=list)
    ko: list[str] = Field(default_factory=list)


class _TermModel(StrictModel):
    id: str = Field(pattern=KEBAB_ID_PATTERN)
    term: _Localized
    definition: _Localized
    aliases: _LocalizedList = Field(default_factory=_LocalizedList)
    section: str = Field(pattern=SECTION_PATTERN)
    related: list[str] = Field(default_factory=list)


class _GlossaryModel(StrictModel):
    terms: list[_TermModel] = Field(min_length=1)


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    id: str
    terms: Mapping[str, str]  # language -> the term as that language writes it
    definitions: Mapping[str, str]
    aliases: Mapping[str, tuple[str, ...]]
    chapter: str  # the slug of the chapter that teaches it
    section: str  # the heading id there
    related: tuple[str, ...]

    @property
    def anchor(self) -> str:
        """The entry's id on the glossary page."""
        return f"term-{self.id}"

    def spellings(self, language: str) -> tuple[str, ...]:
        """Every way text in `language` may write the term: the term, its parts around a parenthesis
        ("버스 대역폭(busbw)" is also "버스 대역폭" and "busbw"), its aliases, and in a language other than English
        the English spellings too (Korean text writes NVLink, RDMA and busbw in Latin script)."""
        forms: list[str] = []
        languages = [language] + ([LANGUAGES[0]] if language != LANGUAGES[0] else [])
        for source in languages:
            for text in (self.terms[source], *self.aliases[source]):
                forms.append(text)
                match = _PARENTHESIS.match(text)
                if match:
                    forms.extend((match.group("outer"), match.group("inner")))
        return tuple(dict.fromkeys(form.strip() for form in forms if form.strip()))


@dataclass(frozen=True, slots=True)
class IndexGroup:
    """The entries under one initial of the glossary's index."""

    initial: str
    entries: tuple[GlossaryEntry, ...]

    @property
    def anchor(self) -> str:
        return "initial-" + "-".join(f"{ord(character):x}" for character in self.initial)


@dataclass(frozen=True, slots=True)
class Glossary:
    entries: tuple[GlossaryEntry, ...] = ()
    _by_id: Mapping[str, GlossaryEntry] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, entries: Iterable[GlossaryEntry]) -> Glossary:
        listed = tuple(entries)
        return cls(listed, {entry.id: entry for entry in listed})

    def get(self, term_id: str) -> GlossaryEntry | None:
        return self._by_id.get(term_id)

    def __len__(self) -> int:
        return len(self.entries)

    def ordered(self, language: str) -> tuple[GlossaryEntry, ...]:
        """The entries in the order a reader of `language` looks them up (A–Z, 가나다)."""
        return tuple(sorted(self.entries, key=lambda entry: sort_key(entry.terms[language], language)))

    def index(self, language: str) -> tuple[IndexGroup, ...]:
        groups: dict[str, list[GlossaryEntry]] = {}
        for entry in self.ordered(language):
            groups.setdefault(initial(entry.terms[language]), []).append(entry)
        return tuple(IndexGroup(letter, tuple(entries)) for letter, entries in groups.items())


def _hangul_initial(character: str) -> str | None:
    code = ord(character)
    if _HANGUL_FIRST <= code <= _HANGUL_LAST:
        return _INITIALS[(code - _HANGUL_FIRST) // _PER_INITIAL]
    return None


def initial(term: str) -> str:
    """The index letter of a term: its Hangul initial consonant, its Latin letter (A–Z), or 0–9."""
    first = unicodedata.normalize("NFKD", term.strip())[:1]
    hangul = _hangul_initial(term.strip()[:1])
    if hangul is not None:
        return _INDEX_INITIAL.get(hangul, hangul)
    if first.isdigit():
        return DIGITS_INITIAL
    return first.upper()


def sort_key(term: str, language: str) -> tuple[int, str]:
    """Korean: Hangul terms first in 가나다 order (code point order of syllables is that order), then terms in
    Latin script A–Z, as Korean glossaries of technical terms list them; English: A–Z, case ignored."""
    folded = unicodedata.normalize("NFKD", term).casefold()
    if language == "ko":
        return (0 if _hangul_initial(term.strip()[:1]) else 1, folded)
    return (0, folded)


@dataclass(frozen=True, slots=True)
class GlossarySource:
    """The parsed file, with what locates an entry's fields in it (for problems found after the chapters)."""

    glossary: Glossary
    path: Path
    node: yaml.Node | None = None
    positions: Mapping[str, int] = field(default_factory=dict)  # id -> index in the file's list of terms
    problems: tuple[ContentProblem, ...] = ()

    def line(self, term_id: str, *location: str | int) -> int | None:
        if self.node is None or term_id not in self.positions:
            return None
        return line_of(self.node, ("terms", self.positions[term_id], *location)) + 1


def load_glossary(content_dir: Path) -> GlossarySource:
    """Parse and check glossary.yaml on its own (an absent file is an empty glossary)."""
    path = content_dir / GLOSSARY_FILE
    if not path.is_file():
        return GlossarySource(Glossary(), path)
    try:
        model, node = parse_yaml(path, path.read_text("utf-8"), _GlossaryModel)
    except ContentProblemsError as raised:
        return GlossarySource(Glossary(), path, problems=tuple(raised.problems))
    problems: list[ContentProblem] = []
    positions: dict[str, int] = {}
    entries: list[GlossaryEntry] = []
    seen: set[str] = set()
    for index, term in enumerate(model.terms):
        if term.id in seen:
            line = line_of(node, ("terms", index, "id")) + 1
            problems.append(ContentProblem(path, line, f"duplicate glossary id '{term.id}'"))
            continue
        seen.add(term.id)
        positions[term.id] = index
        chapter, _, section = term.section.partition("#")
        entries.append(
            GlossaryEntry(
                id=term.id,
                terms=term.term.model_dump(),
                definitions=term.definition.model_dump(),
                aliases={language: tuple(getattr(term.aliases, language)) for language in LANGUAGES},
                chapter=chapter,
                section=section,
                related=tuple(term.related),
            )
        )
    source = GlossarySource(Glossary.of(entries), path, node, positions)
    problems.extend(_spelling_problems(source))
    return GlossarySource(source.glossary, path, node, positions, tuple(problems))


def _spelling_problems(source: GlossarySource) -> list[ContentProblem]:
    problems: list[ContentProblem] = []
    glossary = source.glossary
    for language in LANGUAGES:
        owner: dict[str, str] = {}
        for entry in glossary.entries:
            for spelling in entry.spellings(language):
                key = spelling.casefold()
                other = owner.setdefault(key, entry.id)
                if other != entry.id:
                    message = f"'{spelling}' names both '{other}' and '{entry.id}' in {language} text"
                    field = (
                        "aliases"
                        if any(spelling in entry.aliases[other_language] for other_language in LANGUAGES)
                        else "term"
                    )
                    problems.append(ContentProblem(source.path, source.line(entry.id, field), message))
    return problems


def reference_problems(source: GlossarySource, course: Course) -> list[ContentProblem]:
    """Every taught-in section and related term resolves, in every language."""
    problems: list[ContentProblem] = []
    glossary = source.glossary
    for entry in glossary.entries:
        where = f"section '{entry.chapter}#{entry.section}'"
        chapter = course.chapter(entry.chapter)
        if chapter is None:
            message = f"{where}: no published chapter '{entry.chapter}'"
            problems.append(ContentProblem(source.path, source.line(entry.id, "section"), message))
        else:
            for language, page in chapter.pages.items():
                if entry.section not in page.anchors:
                    message = f"{where}: guides/{entry.chapter}/{language}.md has no heading {{#{entry.section}}}"
                    problems.append(ContentProblem(source.path, source.line(entry.id, "section"), message))
        for position, related in enumerate(entry.related):
            if related == entry.id or glossary.get(related) is None:
                reason = "is the entry itself" if related == entry.id else "is not a glossary id"
                message = f"related term '{related}' {reason}"
                problems.append(ContentProblem(source.path, source.line(entry.id, "related", position), message))
    return problems
