"""Rendering pages: per-learner pages per request, shared pages once into a cached Representation.

A shared page (a chapter, the lab, the glossary) depends on nothing but its path and language: it is rendered
once, compressed once and served from memory with a strong ETag and `Cache-Control: public`, so a proxy or CDN
can keep it too. A per-learner page (home with progress, quizzes, attempts) is rendered per request and marked
`private, no-store`.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jinja2 import Environment
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.types import ASGIApp

from app.config import PROJECT_ROOT
from app.content import Course
from app.i18n import LANGUAGES
from app.quiz.messages import QuizText
from app.web import cache_policy
from app.web.cache_policy import SHARED_PAGE
from app.web.caching import Representation
from app.web.templating.environment import build_environments
from app.web.templating.static import StaticAssets
from app.web.templating.urls import url_path_for

TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "static"
HTML = "text/html; charset=utf-8"
PER_REQUEST = cache_policy.headers(cache_policy.PRIVATE)


class Templates:
    def __init__(
        self,
        translations: Mapping[str, gettext.GNUTranslations],
        course: Course,
        base_url: str,
        assets: StaticAssets,
        directory: Path = TEMPLATES_DIR,
        links: Mapping[str, str | None] | None = None,
    ) -> None:
        self.assets = assets
        self.course = course
        self.base_url = base_url
        self.environments: dict[str, Environment] = build_environments(
            directory,
            translations,
            {
                language: {
                    "quiz_text": QuizText(translations[language], language),
                    "course": course,
                    "base_url": base_url,
                    "static": assets.url_path,
                    "donation_url": None,
                    "next_guide_url": None,
                }
                | dict(links or {})
                for language in LANGUAGES
            },
        )
        self._shared: dict[tuple[str, str], Representation] = {}

    def render_to_string(self, app: ASGIApp, name: str, language: str, context: Mapping[str, Any]) -> str:
        template = self.environments[language].get_template(name)
        switch, query = context.get("switch"), context.get("switch_query", "")
        return template.render(self._url_context(app, language, switch, query) | dict(context))

    def page(
        self,
        request: Request,
        name: str,
        language: str,
        context: Mapping[str, Any] | None = None,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        """A per-learner page (never cached)."""
        html = self._render_page(request, name, language, context)
        return HTMLResponse(html, status_code=status_code, headers=PER_REQUEST | dict(headers or {}))

    def shared(
        self, request: Request, name: str, language: str, context: Mapping[str, Any] | None = None
    ) -> Representation:
        """A page that is the same for every visitor, rendered once per (language, path) and kept.
        The context must depend on nothing but the path (the content is immutable after start-up)."""
        key = (language, request.url.path)
        representation = self._shared.get(key)
        if representation is None:
            html = self._render_page(request, name, language, context)
            representation = self._shared.setdefault(key, Representation.build(html.encode(), HTML, SHARED_PAGE))
        return representation

    def _render_page(self, request: Request, name: str, language: str, context: Mapping[str, Any] | None) -> str:
        """A full page: its language switcher points at the same route unless the context says otherwise."""
        full = {"switch": _switch_from(request)} | dict(context or {})
        return self.render_to_string(request.app, name, language, full)

    def _url_context(
        self, app: ASGIApp, language: str, switch: tuple[str | None, dict[str, Any]] | None, query: str = ""
    ) -> dict[str, Any]:
        def url(route_name: str, /, **params: Any) -> str:
            return url_path_for(app, route_name, **params)

        def switch_language(target: str) -> str:
            """The current page in `target` language (routes with a `lang` parameter), else that home page.
            `query` is the page's diagram states, already validated (``switch_query`` in the context)."""
            route_name, params = switch or (None, {})
            if route_name and "lang" in params:
                try:
                    page = url(route_name, **(params | {"lang": target}))
                except Exception:
                    return url("home", lang=target)
                return f"{page}?{query}" if query else page
            return url("home", lang=target)

        return {"url": url, "switch_language": switch_language}


def _switch_from(request: Request) -> tuple[str | None, dict[str, Any]]:
    route = request.scope.get("route")
    return getattr(route, "name", None), dict(request.path_params)
