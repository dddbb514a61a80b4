"""The course's search: one index per language, built once at start-up, and what to offer when nothing matches."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.content import Course
from app.content.glossary import GlossaryEntry
from app.search.documents import build_indexes
from app.search.index import Results, SearchIndex, suggestions
from app.search.text import parse_query

# Offered when a query is like no term at all: the terms the course is built around, in course order.
STARTER_TERMS: tuple[str, ...] = ("nvlink", "nvswitch", "all-reduce", "busbw", "rdma", "fat-tree")
SUGGESTIONS = 6


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    results: Results
    suggestions: tuple[GlossaryEntry, ...]  # glossary terms to try, when nothing matched


class CourseSearch:
    def __init__(self, course: Course, glossary_titles: Mapping[str, str]) -> None:
        self.course = course
        self.indexes: dict[str, SearchIndex] = build_indexes(course, dict(glossary_titles))
        self._spellings = {
            language: [
                (entry.id, spelling) for entry in course.glossary.entries for spelling in entry.spellings(language)
            ]
            for language in glossary_titles
        }

    def search(self, language: str, raw_query: str, limit: int = 20) -> SearchAnswer:
        query = parse_query(raw_query)
        results = self.indexes[language].search(query, limit)
        offered: tuple[GlossaryEntry, ...] = ()
        if not results.hits and query.text:
            glossary = self.course.glossary
            ids = suggestions(query, self._spellings[language], SUGGESTIONS) or [
                term_id for term_id in STARTER_TERMS if glossary.get(term_id) is not None
            ]
            offered = tuple(entry for term_id in ids if (entry := glossary.get(term_id)) is not None)
        return SearchAnswer(results, offered)
