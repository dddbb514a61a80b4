"""What is searched: every published chapter by section, its FAQ, and the glossary, taken from the rendered
content, so that a new chapter is searchable without a line of code.

A chapter's rendered HTML is cut at its `<h2 id>` and `<h3 id>` headings (every heading has an id, the content
validator sees to it); each piece's text is one document that links to its heading. Tags between blocks become
spaces and tags inside a block vanish, so a table's cells stay separate words and `<a>NVLink</a>는` stays one.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from app.content import ChapterPage, Course
from app.search.index import Document, SearchIndex

_HEADING = re.compile(r'<h([23]) id="([^"]+)">(.*?)</h\1>', re.DOTALL)
_BLOCK_TAG = re.compile(
    r"</?(?:p|div|li|ul|ol|dl|dt|dd|tr|td|th|table|thead|tbody|h[1-6]|pre|br|section|aside|blockquote|figure)\b[^>]*>"
)
_TAG = re.compile(r"<[^>]+>")


def plain_text(fragment: str) -> str:
    text = _TAG.sub("", _BLOCK_TAG.sub(" ", fragment))
    return " ".join(html.unescape(text).split())


def chapter_documents(page: ChapterPage, chapter_title: str, faq_anchor: str) -> Iterator[Document]:
    body = "".join(part.html for part in page.body)
    pieces = _HEADING.split(body)
    # split() gives: text before the first heading, then (level, id, heading html, text after it) per heading.
    introduction = plain_text(pieces[0])
    if introduction:
        yield Document("section", page.slug, None, page.title, chapter_title, introduction)
    for position in range(1, len(pieces) - 1, 4):
        anchor, heading, text = pieces[position + 1], plain_text(pieces[position + 2]), plain_text(pieces[position + 3])
        yield Document("section", page.slug, anchor, heading, chapter_title, text)
    for entry in page.faq:
        yield Document("faq", page.slug, faq_anchor, entry.question, chapter_title, entry.answer)


def course_documents(course: Course, language: str, glossary_title: str, faq_anchor: str = "faq") -> list[Document]:
    documents: list[Document] = []
    for chapter in course.published:
        documents.extend(chapter_documents(chapter.pages[language], chapter.titles[language], faq_anchor))
    for entry in course.glossary.entries:
        spellings = " ".join(entry.spellings(language))
        definition = entry.definitions[language]
        documents.append(
            Document("glossary", None, entry.anchor, entry.terms[language], glossary_title, definition, spellings)
        )
    return documents


def build_indexes(course: Course, glossary_titles: dict[str, str]) -> dict[str, SearchIndex]:
    """One index per language, each over that language's documents."""
    return {
        language: SearchIndex(course_documents(course, language, title)) for language, title in glossary_titles.items()
    }
