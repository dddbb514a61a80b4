"""Search result pages and fragments, rendered once per (language, query) and kept, like every shared page.

A result page depends on nothing but its language and query, so it is the same bytes for everyone, public and
cacheable; the page cache in front replays an address it has seen (app/web/middleware/page_cache.py). Here the
answer is remembered by the query as searched (cleaned and cut, app/search/text.py), so that `?q=busbw` and
`?q=busbw%20%20` render once; recent queries are kept in a bounded LRU, so a flood of distinct queries costs
memory only up to that bound.

Nothing here logs: a query is something a learner typed, and the page cache and routes know no learner.
"""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.types import ASGIApp

from app.remembered import Remembered
from app.search import MAX_QUERY_CHARACTERS, CourseSearch, Query, parse_query
from app.web.cache_policy import SHARED_PAGE
from app.web.caching import Representation
from app.web.htmx import VARY
from app.web.templating import HTML, Templates

RECENT_QUERIES = 1024
OPENSEARCH = "application/opensearchdescription+xml"


class SearchPages:
    def __init__(self, templates: Templates, search: CourseSearch) -> None:
        self.templates = templates
        self.search = search
        self._recent: Remembered[tuple[str, str, bool, bool], Representation] = Remembered(RECENT_QUERIES)
        self._opensearch: dict[str, Representation] = {}

    def representation(self, app: ASGIApp, language: str, raw_query: str, fragment: bool) -> Representation:
        """The results page, or (for an HTMX swap) the results fragment, for `raw_query`."""
        query = parse_query(raw_query)
        key = (language, query.text, query.truncated, fragment)
        return self._recent.remember(key, lambda: self._results(app, language, query, fragment))

    def _results(self, app: ASGIApp, language: str, query: Query, fragment: bool) -> Representation:
        answer = self.search.search(language, query.text)
        context = {
            "answer": answer,
            "query": query,
            "max_query_characters": MAX_QUERY_CHARACTERS,
            "switch": ("search", {"lang": language}),
            "switch_query": urlencode({"q": query.text}) if query.text else "",
        }
        name = "_search_results.html" if fragment else "search.html"
        body = self.templates.render_to_string(app, name, language, context).encode()
        return Representation.build(body, HTML, SHARED_PAGE, headers=[("vary", VARY)])

    def opensearch(self, app: ASGIApp, language: str) -> Representation:
        """The OpenSearch description that lets a browser add the site's search in this language."""
        representation = self._opensearch.get(language)
        if representation is None:
            body = self.templates.render_to_string(app, "opensearch.xml", language, {}).encode()
            representation = Representation.build(body, f"{OPENSEARCH}; charset=utf-8", SHARED_PAGE)
            self._opensearch[language] = representation
        return representation
