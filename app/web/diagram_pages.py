"""Rendering diagram fragments in the learner's language, with a cache in front, and pages that embed diagrams
in the state their address asks for.

A fragment depends only on the diagram, the language and the diagram's fields in the query string, and rendering
one costs a few milliseconds of template work, so rendered fragments are kept: each diagram's default state for
good (chapter pages and the lab embed them), and recently asked-for states in a bounded LRU, so that a learner
stepping back and forth, or many learners opening a shared link, get bytes from memory.

A page's address carries the state of each diagram on it with the diagram's id as prefix
(``/en/lab?topology.topology=rail-fat-tree&topology.gpu_b=29#diagram-topology``): the forms name their fields so,
and submit to the page they are on, so that a browser without JavaScript comes back to the same page at the
diagram. The diagram's own address (``/en/lab/topology``) takes the same prefixed names, and the unprefixed ones
it has always taken.

Such a page also carries its diagrams' states where a browser without JavaScript needs them: each diagram's form
has the other diagrams' states as hidden inputs (outside the cached fragment, tied to the form by its id), so
"Redraw" on one keeps the rest, and the language switcher's link carries every valid state. Both come from the
states the diagrams were drawn in, never from the query text as typed.

A page may embed a diagram *deferred*: everything after the figure's caption sits in a ``<noscript>``. Without
JavaScript the browser shows it as it is; with JavaScript it is one text node, which costs the phone no parsing,
style or layout until diagrams.js turns it into the figure as the reader nears it. A chapter's four figures are
half its markup and more than a third of its layout work, none of it on the first screen.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.types import ASGIApp

from app.diagrams import DIAGRAMS, Diagram
from app.diagrams.fields import FieldError, Form, Problem
from app.diagrams.problems import problem_message
from app.remembered import Remembered
from app.web.cache_policy import NO_STORE, SHARED_PAGE
from app.web.caching import Representation
from app.web.htmx import VARY
from app.web.templating import HTML, Templates
from app.web.templating.urls import url_path_for

UrlFor = Callable[..., str]
RECENT_FRAGMENTS = 256
RECENT_PAGES = 256
INVALID = NO_STORE  # a bad state is one learner's typo: no cache should keep it


@dataclass(frozen=True, slots=True)
class Rendered:
    status_code: int  # 200, or 422 when a field is out of range
    html: Markup
    body: bytes
    address: Mapping[str, str]  # the page-address fields of this state ("topology.gpu_b": "6"), defaults left out


def diagram_query(diagram: Diagram, query_string: bytes) -> dict[str, str]:
    """The diagram's fields in a query string, prefixed (``topology.gpu_b``) or not (``gpu_b``); the first wins."""
    prefix = f"{diagram.id}."
    query: dict[str, str] = {}
    for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        field = name.removeprefix(prefix)
        if field in diagram.defaults:
            query.setdefault(field, value)
    return query


def page_states(query_string: bytes) -> dict[str, bytes]:
    """For a page's query string: each diagram it sets (by prefixed names), as that diagram's own query string."""
    states: dict[str, dict[str, str]] = {}
    for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        diagram_id, dot, field = name.partition(".")
        diagram = DIAGRAMS.get(diagram_id)
        if dot and diagram is not None and field in diagram.defaults:
            states.setdefault(diagram_id, {}).setdefault(field, value)
    return {diagram_id: urlencode(state).encode("latin-1") for diagram_id, state in sorted(states.items())}


def deferred_figure(html: Markup) -> Markup:
    """The figure with everything after its caption inside ``<noscript class="dg-deferred">``."""
    head, caption_end, rest = html.partition("</figcaption>")
    body, figure_end, tail = rest.rpartition("</figure>")
    if not caption_end or not figure_end or "</noscript" in body:
        raise ValueError("a diagram fragment is one <figure> whose caption comes first")
    return Markup(f'{head}{caption_end}<noscript class="dg-deferred">{body}</noscript>{figure_end}{tail}')  # noqa: S704  (pieces of an autoescaped fragment)


class DiagramRenderer:
    """Renders diagram fragments and pages, and lets templates embed a diagram in the state of the page's address
    (``{{ diagram("topology") }}``)."""

    def __init__(self, templates: Templates, translations: Mapping[str, gettext.GNUTranslations]) -> None:
        self.templates = templates
        self.translations = translations
        self._defaults: dict[tuple[str, str], Rendered] = {}
        self._recent: Remembered[tuple[str, str, bytes], Rendered] = Remembered(RECENT_FRAGMENTS)
        self._representations: Remembered[tuple[str, str, bytes, bool], Representation] = Remembered(RECENT_FRAGMENTS)
        self._pages: Remembered[tuple[str, str, str, tuple[tuple[str, bytes], ...]], Representation] = Remembered(
            RECENT_PAGES
        )

        @pass_context
        def diagram(context: Context, diagram_id: str, deferred: bool = False) -> Markup:
            states: Mapping[str, bytes] = context.get("diagram_states", {})
            rendered = self.render(diagram_id, context["lang"], states.get(diagram_id, b""), context["url"])
            figure = deferred_figure(rendered.html) if deferred else rendered.html
            return figure + self._carried(diagram_id, context["lang"], states, context["url"])

        for environment in templates.environments.values():
            environment.globals["diagram"] = diagram

    def representation(
        self, app: ASGIApp, diagram_id: str, language: str, query_string: bytes, fragment: bool
    ) -> Representation:
        """The fragment (for an HTMX swap) or the full page of one diagram state, ready to serve."""
        key = (diagram_id, language, query_string, fragment)
        return self._representations.remember(
            key, lambda: self._representation(app, diagram_id, language, query_string, fragment)
        )

    def _representation(
        self, app: ASGIApp, diagram_id: str, language: str, query_string: bytes, fragment: bool
    ) -> Representation:
        def url(route_name: str, /, **params: Any) -> str:
            return url_path_for(app, route_name, **params)

        rendered = self.render(diagram_id, language, query_string, url)
        body = rendered.body
        headers = [("vary", VARY)]
        if not fragment:
            context = {
                "diagram_id": diagram_id,
                "fragment": rendered.html,
                "invalid": rendered.status_code != 200,
                "switch": ("diagram", {"lang": language, "diagram_id": diagram_id}),
                "switch_query": urlencode(rendered.address) if rendered.status_code == 200 else "",
            }
            body = self.templates.render_to_string(app, "diagrams/page.html", language, context).encode()
        elif rendered.status_code != 200:
            # htmx then swaps only the form (out of band) and keeps the last good chart on the page.
            headers.append(("hx-reswap", "none"))
        cache_control = SHARED_PAGE if rendered.status_code == 200 else INVALID
        return Representation.build(body, HTML, cache_control, rendered.status_code, headers)

    def shared_page(
        self, request: Request, name: str, language: str, context: Mapping[str, Any] | None = None
    ) -> Representation:
        """A page that embeds diagrams (the lab, a chapter), with each diagram in the state its address asks for.
        Without diagram fields in the query it is the page every visitor gets (``Templates.shared``)."""
        states = page_states(request.scope["query_string"])
        if not states:
            return self.templates.shared(request, name, language, context)
        key = (name, language, request.url.path, tuple(states.items()))
        return self._pages.remember(key, lambda: self._page(request, name, language, states, context))

    def _page(
        self,
        request: Request,
        name: str,
        language: str,
        states: Mapping[str, bytes],
        context: Mapping[str, Any] | None,
    ) -> Representation:
        route = request.scope.get("route")
        full = {"switch": (getattr(route, "name", None), dict(request.path_params))} | dict(context or {})
        full["diagram_states"] = states

        def url(route_name: str, /, **params: Any) -> str:
            return url_path_for(request.app, route_name, **params)

        rendered = {diagram_id: self.render(diagram_id, language, state, url) for diagram_id, state in states.items()}
        invalid = any(each.status_code != 200 for each in rendered.values())
        full["switch_query"] = urlencode(
            [
                field
                for diagram_id in DIAGRAMS
                if diagram_id in rendered and rendered[diagram_id].status_code == 200
                for field in rendered[diagram_id].address.items()
            ]
        )
        html = self.templates.render_to_string(request.app, name, language, full)
        status_code, cache_control = (422, INVALID) if invalid else (200, SHARED_PAGE)
        return Representation.build(html.encode(), HTML, cache_control, status_code)

    def render(self, diagram_id: str, language: str, query_string: bytes, url: UrlFor) -> Rendered:
        diagram = DIAGRAMS[diagram_id]
        query = diagram_query(diagram, query_string)
        if not query:
            return self._default(diagram, language, url)
        key = (diagram_id, language, urlencode(query).encode("latin-1"))
        return self._recent.remember(key, lambda: self._render(diagram, language, query, url))

    def _carried(self, diagram_id: str, language: str, states: Mapping[str, bytes], url: UrlFor) -> Markup:
        """The other diagrams' states as hidden inputs of this diagram's form, for "Redraw" without JavaScript
        (diagrams.js removes them: with JavaScript the page's address keeps the states)."""
        form = f"{DIAGRAMS[diagram_id].root_id}-form"
        inputs = [
            f'<input type="hidden" form="{form}" name="{escape(name)}" value="{escape(value)}" data-dg-carry>'
            for other, state in states.items()
            if other != diagram_id
            for rendered in [self.render(other, language, state, url)]
            if rendered.status_code == 200
            for name, value in rendered.address.items()
        ]
        return Markup("\n".join(inputs))  # noqa: S704  (every part escaped)

    def _default(self, diagram: Diagram, language: str, url: UrlFor) -> Rendered:
        rendered = self._defaults.get((diagram.id, language))
        if rendered is None:
            rendered = self._defaults.setdefault((diagram.id, language), self._render(diagram, language, {}, url))
        return rendered

    def _render(self, diagram: Diagram, language: str, query: Mapping[str, str], url: UrlFor) -> Rendered:
        form = {name: query.get(name, default) for name, default in diagram.defaults.items()}
        problem: Problem | None = None
        try:
            view = diagram.build(form)
        except FieldError as error:
            problem = error.problem
            view = _fallback(diagram, form, problem)
        message = ""
        if problem is not None:
            message = problem_message(problem, diagram.labels, form, self.translations[language])
        state = diagram.state(form, view) if problem is None else form
        action = url("diagram", lang=language, diagram_id=diagram.id)
        prefix = f"{diagram.id}."

        def changed(**changes: Any) -> dict[str, str]:
            return {
                name: value
                for name, value in (state | {k: str(v) for k, v in changes.items()}).items()
                if value != diagram.defaults[name]
            }

        def with_query(**changes: Any) -> str:
            """The fragment's address for this state with ``changes``: what htmx asks for."""
            return f"{action}?{urlencode(state | {k: str(v) for k, v in changes.items()})}"

        def page_link(**changes: Any) -> str:
            """This state with ``changes`` on whatever page the diagram is on, at the diagram: a relative address,
            so one cached fragment serves the lab, every chapter and the diagram's own page."""
            fields = changed(**changes)
            return f"?{urlencode({prefix + name: value for name, value in fields.items()})}#{diagram.root_id}"

        template = self.templates.environments[language].get_template(diagram.template)
        html = template.render(
            lang=language,
            url=url,
            view=view,
            form=form,
            problem=problem,
            message=message,
            diagram=diagram,
            limits=diagram.limits,
            root=diagram.root_id,
            action=action,
            with_query=with_query,
            page_link=page_link,
            share_link=page_link(),
        )
        address = {prefix + name: value for name, value in changed().items()}
        return Rendered(422 if problem else 200, Markup(html), html.encode(), address)  # noqa: S704  (autoescaped)


def _fallback(diagram: Diagram, form: Form, problem: Problem) -> object:
    """What to draw beside the message while a field is wrong: the same state with that field at its default, or
    the defaults (a browser with JavaScript keeps the chart it already shows instead)."""
    try:
        return diagram.build({**form, problem.field: diagram.defaults[problem.field]})
    except (FieldError, KeyError):
        return diagram.build(diagram.defaults)
