"""Full-text search over the course: pure (an index and its ranking, built from the rendered content; no web)."""

from app.search.documents import build_indexes, course_documents
from app.search.index import Document, Hit, Results, SearchIndex, Segment, suggestions
from app.search.service import CourseSearch, SearchAnswer
from app.search.text import MAX_QUERY_CHARACTERS, Query, parse_query

__all__ = [
    "MAX_QUERY_CHARACTERS",
    "CourseSearch",
    "Document",
    "Hit",
    "Query",
    "Results",
    "SearchAnswer",
    "SearchIndex",
    "Segment",
    "build_indexes",
    "course_documents",
    "parse_query",
    "suggestions",
]
