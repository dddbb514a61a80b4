"""Jinja2 environments, one per language, with gettext installed and the helpers every template uses."""

from __future__ import annotations

import gettext
import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from babel.dates import format_date
from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_eval_context, select_autoescape
from jinja2.nodes import EvalContext
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import NoMatchFound

from app.config import PROJECT_ROOT
from app.content.models import FaqEntry
from app.web.csrf import csrf_token
from app.web.i18n import LANGUAGE_NAMES, SUPPORTED_LANGUAGES
from app.web.identity import learner_identity

TEMPLATES_DIR = PROJECT_ROOT / "templates"
# Stands in for the learner's CSRF token in pages rendered once and reused for every learner.
_TOKEN_SENTINEL = "\x00csrf-token\x00"  # noqa: S105  (a placeholder, not a secret)
_TOKEN_SENTINEL_BYTES = _TOKEN_SENTINEL.encode()
STATIC_DIR = PROJECT_ROOT / "static"


def json_ld(data: Mapping[str, Any]) -> Markup:
    """JSON for a <script type="application/ld+json"> block; '<' is escaped so no '</script>' can end it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return Markup(text)  # noqa: S704  (escaped above; JSON inside a data block, never executed)


def faq_entity(entry: FaqEntry) -> dict[str, Any]:
    """A schema.org Question for FAQPage JSON-LD."""
    return {"@type": "Question", "name": entry.question, "acceptedAnswer": {"@type": "Answer", "text": entry.answer}}


def _named_routes(routes: Iterable[Any]) -> Iterator[tuple[str, Any]]:
    for route in routes:
        included = getattr(route, "effective_route_contexts", None)
        if included is not None:  # FastAPI keeps an included router as one entry that holds its routes
            yield from _named_routes(included())
            continue
        # FastAPI's context for a plain Starlette route has an empty name; the route it wraps has the real one.
        name = getattr(route, "name", None) or getattr(getattr(route, "original_route", None), "name", None)
        if name:
            yield name, route


def url_path(request: Request, route_name: str, /, **params: Any) -> str:
    """Starlette's url_path_for, but through a name -> route table instead of trying every route in turn."""
    app = request.app
    table: dict[str, Any] | None = getattr(app.state, "routes_by_name", None)
    if table is None:
        table = {}
        for name, route in _named_routes(app.routes):
            table.setdefault(name, route)
        app.state.routes_by_name = table
    route = table.get(route_name)
    if route is not None:
        try:
            return str(route.url_path_for(route_name, **params))
        except NoMatchFound:  # another route of that name may take these parameters
            pass
    return str(app.url_path_for(route_name, **params))


def install_direct_gettext(environment: Environment, translations: gettext.GNUTranslations) -> None:
    """Jinja's newstyle `_`, `gettext` and `ngettext`, each one call instead of three.

    Jinja's `_` is an alias that calls `gettext` through the template context, which calls the catalogue through
    the context again; on a quiz answer's fragment those layers cost as much as the rest of its rendering.
    The behaviour is the newstyle one: the translation is a format string (so %% is a literal %), safe markup
    under autoescape with its variables escaped (our own catalogue is trusted, as Jinja trusts it), and ngettext
    passes `num`.
    """

    @pass_eval_context
    def direct_gettext(eval_context: EvalContext, message: str, /, **variables: Any) -> str:
        translated = translations.gettext(message)
        return (Markup(translated) if eval_context.autoescape else translated) % variables  # noqa: S704

    @pass_eval_context
    def direct_ngettext(eval_context: EvalContext, singular: str, plural: str, num: int, /, **variables: Any) -> str:
        variables.setdefault("num", num)
        translated = translations.ngettext(singular, plural, num)
        return (Markup(translated) if eval_context.autoescape else translated) % variables  # noqa: S704

    environment.globals.update(_=direct_gettext, gettext=direct_gettext, ngettext=direct_ngettext)


class StaticVersions:
    """Content hashes of static files, appended as ?v= so browsers may cache them for long."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._versions: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        version = self._versions.get(path)
        if version is None:
            file_path = self.root / path
            digest = hashlib.sha256(file_path.read_bytes()).hexdigest()[:12] if file_path.is_file() else "0"
            version = self._versions.setdefault(path, digest)
        return version


class Templates:
    def __init__(self, translations: Mapping[str, gettext.GNUTranslations], directory: Path = TEMPLATES_DIR):
        self.static_versions = StaticVersions(STATIC_DIR)
        self._shared_pages: dict[tuple[str, str, str], list[bytes]] = {}
        self.environments: dict[str, Environment] = {}
        for language in SUPPORTED_LANGUAGES:
            environment = Environment(
                loader=FileSystemLoader(directory),
                autoescape=select_autoescape(default=True, default_for_string=True),
                undefined=StrictUndefined,
                extensions=["jinja2.ext.i18n"],
                # Templates do not change while the app runs; without this every include stats its file.
                auto_reload=False,
                trim_blocks=True,
                lstrip_blocks=True,
            )
            environment.install_gettext_translations(translations[language], newstyle=True)  # type: ignore[attr-defined]
            install_direct_gettext(environment, translations[language])
            environment.globals.update(
                LANGUAGES=SUPPORTED_LANGUAGES,
                LANGUAGE_NAMES=LANGUAGE_NAMES,
                json_ld=json_ld,
            )
            environment.filters["date"] = _date_filter(language)
            environment.filters["faq_entity"] = faq_entity
            self.environments[language] = environment

    def render(
        self,
        request: Request,
        name: str,
        language: str,
        context: Mapping[str, Any] | None = None,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        template = self.environments[language].get_template(name)
        html = template.render(self.base_context(request, language) | dict(context or {}))
        return HTMLResponse(html, status_code=status_code, headers=dict(headers or {}))

    def render_shared(
        self,
        request: Request,
        name: str,
        language: str,
        context: Mapping[str, Any] | None = None,
    ) -> HTMLResponse:
        """Render a page that is the same for every learner once per path, then serve it from memory.

        Only the CSRF token differs between learners; it is rendered as a sentinel and substituted per request.
        The context must depend on nothing but the path (the content is immutable after start-up).
        """
        key = (name, language, request.url.path)
        pieces = self._shared_pages.get(key)
        if pieces is None:
            template = self.environments[language].get_template(name)
            shared_context = self.base_context(request, language, token=_TOKEN_SENTINEL) | dict(context or {})
            rendered = template.render(shared_context).encode()
            pieces = self._shared_pages.setdefault(key, rendered.split(_TOKEN_SENTINEL_BYTES))
        state = request.app.state.interconnects
        token = csrf_token(state.secret_key, learner_identity(request).learner_id)
        return HTMLResponse(token.encode().join(pieces))

    def base_context(self, request: Request, language: str, token: str | None = None) -> dict[str, Any]:
        state = request.app.state.interconnects

        def url(route_name: str, /, **params: Any) -> str:
            return url_path(request, route_name, **params)

        def static(path: str) -> str:
            return f"{url('static', path=path)}?v={self.static_versions(path)}"

        def switch_language(target: str) -> str:
            """The current page in `target` language (routes with a `lang` parameter), else that home page."""
            route = request.scope.get("route")
            params = dict(request.path_params)
            route_name = getattr(route, "name", None)
            if route_name and "lang" in params:
                params["lang"] = target
                try:
                    return url(route_name, **params)
                except Exception:
                    return url("home", lang=target)
            return url("home", lang=target)

        return {
            "request": request,
            "lang": language,
            "url": url,
            "static": static,
            "switch_language": switch_language,
            "csrf_token": token or csrf_token(state.secret_key, learner_identity(request).learner_id),
            "course": state.course,
            "base_url": state.settings.base_url,
        }


def _date_filter(language: str) -> Any:
    def format_for_language(value: date) -> str:
        return format_date(value, format="long", locale=language)

    return format_for_language
