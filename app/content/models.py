"""The validated, rendered course: immutable, built once at start-up and served from memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from app.content.errors import ChapterNotFoundError

if TYPE_CHECKING:
    from app.content.glossary import Glossary

DIAGRAM_NAMES: frozenset[str] = frozenset({"link-compare", "topology", "ring-allreduce", "busbw-sweep", "scaling"})


@dataclass(frozen=True, slots=True)
class Source:
    id: str
    title: str
    url: str


@dataclass(frozen=True, slots=True)
class FaqEntry:
    question: str
    answer: str


@dataclass(frozen=True, slots=True)
class TocEntry:
    level: int
    anchor: str
    text: str


@dataclass(frozen=True, slots=True)
class BodyPart:
    """A run of rendered HTML, or (when `diagram` is set) the place where an interactive diagram goes."""

    html: str = ""
    diagram: str | None = None


@dataclass(frozen=True, slots=True)
class ChapterPage:
    slug: str
    language: str
    title: str
    summary: str
    updated: date
    body: tuple[BodyPart, ...]
    sources_html: str  # the cited sources as an ordered list, in order of first citation
    toc: tuple[TocEntry, ...]
    sources: tuple[Source, ...]
    faq: tuple[FaqEntry, ...]
    reading_minutes: int
    text: str  # plain text of the body, for search

    @property
    def anchors(self) -> frozenset[str]:
        return frozenset(entry.anchor for entry in self.toc)

    def heading(self, anchor: str) -> str | None:
        """The text of the heading with this id."""
        return next((entry.text for entry in self.toc if entry.anchor == anchor), None)

    @property
    def diagrams(self) -> tuple[str, ...]:
        return tuple(part.diagram for part in self.body if part.diagram is not None)


@dataclass(frozen=True, slots=True)
class Chapter:
    slug: str
    titles: dict[str, str]
    pages: dict[str, ChapterPage]  # empty while the chapter is planned

    @property
    def planned(self) -> bool:
        return not self.pages


@dataclass(frozen=True, slots=True)
class Course:
    titles: dict[str, str]
    descriptions: dict[str, str]
    chapters: tuple[Chapter, ...]
    glossary: Glossary = field(default_factory=lambda: _empty_glossary())

    @property
    def published(self) -> tuple[Chapter, ...]:
        return tuple(chapter for chapter in self.chapters if not chapter.planned)

    @property
    def published_slugs(self) -> tuple[str, ...]:
        return tuple(chapter.slug for chapter in self.published)

    def chapter(self, slug: str) -> Chapter | None:
        for chapter in self.published:
            if chapter.slug == slug:
                return chapter
        return None

    def require(self, slug: str) -> Chapter:
        """The published chapter `slug`; raises ChapterNotFoundError."""
        chapter = self.chapter(slug)
        if chapter is None:
            raise ChapterNotFoundError(slug)
        return chapter

    def neighbours(self, slug: str) -> tuple[Chapter | None, Chapter | None]:
        """The published chapters before and after `slug` in course order."""
        published = self.published
        for index, chapter in enumerate(published):
            if chapter.slug == slug:
                previous = published[index - 1] if index > 0 else None
                following = published[index + 1] if index + 1 < len(published) else None
                return previous, following
        return None, None


def _empty_glossary() -> Glossary:
    from app.content.glossary import Glossary  # glossary.py reads Course, so the import waits until it is needed

    return Glossary()
