"""Rendering diagram fragments in the learner's language, with a cache in front.

A fragment depends only on the diagram, the language and the query string, and rendering one costs a few
milliseconds of template work, so rendered fragments are kept: each diagram's default state for good (chapter
pages and the lab embed them), and recently asked-for states in a bounded LRU, so that a learner stepping back
and forth, or many learners opening a shared link, get bytes from memory.
"""

from __future__ import annotations

import gettext
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from starlette.types import ASGIApp

from app.web.caching import SHARED_PAGE, Representation
from app.web.diagrams import DIAGRAMS, Diagram
from app.web.diagrams.fields import FieldError, Problem
from app.web.htmx import VARY
from app.web.simulation_messages import simulation_error_message
from app.web.templating import HTML, Templates
from app.web.templating.urls import url_path_for

UrlFor = Callable[..., str]
RECENT_FRAGMENTS = 256


@dataclass(frozen=True, slots=True)
class Rendered:
    status_code: int  # 200, or 422 when a field is out of range
    html: Markup
    body: bytes


class DiagramRenderer:
    """Renders diagram fragments and pages, and lets templates embed a diagram in its default state
    (``{{ diagram("topology") }}``)."""

    def __init__(self, templates: Templates, translations: Mapping[str, gettext.GNUTranslations]) -> None:
        self.templates = templates
        self.translations = translations
        self._defaults: dict[tuple[str, str], Rendered] = {}
        self._recent: OrderedDict[tuple[str, str, bytes], Rendered] = OrderedDict()
        self._representations: OrderedDict[tuple[str, str, bytes, bool], Representation] = OrderedDict()

        @pass_context
        def diagram(context: Context, diagram_id: str) -> Markup:
            return self.default(diagram_id, context["lang"], context["url"]).html

        for environment in templates.environments.values():
            environment.globals["diagram"] = diagram

    def representation(
        self, app: ASGIApp, diagram_id: str, language: str, query_string: bytes, fragment: bool
    ) -> Representation:
        """The fragment (for an HTMX swap) or the full page of one diagram state, ready to serve."""
        key = (diagram_id, language, query_string, fragment)
        representation = self._representations.get(key)
        if representation is not None:
            self._representations.move_to_end(key)
            return representation

        def url(route_name: str, /, **params: Any) -> str:
            return url_path_for(app, route_name, **params)

        rendered = self.render(diagram_id, language, query_string, url)
        body = rendered.body
        if not fragment:
            context = {
                "diagram_id": diagram_id,
                "fragment": rendered.html,
                "invalid": rendered.status_code != 200,
                "switch": ("diagram", {"lang": language, "diagram_id": diagram_id}),
            }
            body = self.templates.render_to_string(app, "diagrams/page.html", language, context).encode()
        cache_control = SHARED_PAGE if rendered.status_code == 200 else "no-store"
        representation = Representation.build(body, HTML, cache_control, rendered.status_code, [("vary", VARY)])
        self._representations[key] = representation
        if len(self._representations) > RECENT_FRAGMENTS:
            self._representations.popitem(last=False)
        return representation

    def default(self, diagram_id: str, language: str, url: UrlFor) -> Rendered:
        rendered = self._defaults.get((diagram_id, language))
        if rendered is None:
            rendered = self._defaults.setdefault(
                (diagram_id, language), self._render(DIAGRAMS[diagram_id], language, {}, url)
            )
        return rendered

    def render(self, diagram_id: str, language: str, query_string: bytes, url: UrlFor) -> Rendered:
        if not query_string:
            return self.default(diagram_id, language, url)
        key = (diagram_id, language, query_string)
        rendered = self._recent.get(key)
        if rendered is not None:
            self._recent.move_to_end(key)
            return rendered
        query: dict[str, str] = {}
        for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
            query.setdefault(name, value)
        rendered = self._render(DIAGRAMS[diagram_id], language, query, url)
        self._recent[key] = rendered
        if len(self._recent) > RECENT_FRAGMENTS:
            self._recent.popitem(last=False)
        return rendered

    def _render(self, diagram: Diagram, language: str, query: Mapping[str, str], url: UrlFor) -> Rendered:
        form = {name: query.get(name, default) for name, default in diagram.defaults.items()}
        view: object | None = None
        problem: Problem | None = None
        try:
            view = diagram.build(form)
        except FieldError as error:
            problem = error.problem
        message = ""
        if problem is not None:
            translations = self.translations[language]
            message = simulation_error_message(problem.error, translations, language)
            if problem.series is not None:
                message = translations.gettext("Series %(number)d: %(message)s") % {
                    "number": problem.series,
                    "message": message,
                }
        action = url("diagram", lang=language, diagram_id=diagram.id)

        def with_query(**changes: Any) -> str:
            return f"{action}?{urlencode(form | {k: str(v) for k, v in changes.items()})}"

        template = self.templates.environments[language].get_template(diagram.template)
        html = template.render(
            lang=language,
            url=url,
            view=view,
            form=form,
            problem=problem,
            message=message,
            diagram=diagram,
            root=diagram.root_id,
            action=action,
            with_query=with_query,
        )
        return Rendered(422 if problem else 200, Markup(html), html.encode())  # noqa: S704  (autoescaped template)
