"""Builds the ASGI application: content, database, services, templates, middleware, routes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from datetime import datetime
from pathlib import Path

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from app import migrations
from app.bootstrap import certificate_keys, certificate_service, newsletter_service, utc_now
from app.config import ConfigurationError, Environment, Settings
from app.content import load_course
from app.db import Database
from app.i18n import LANGUAGES
from app.log import configure_logging
from app.quiz.bank import load_quizzes
from app.quiz.service import QuizService
from app.search import CourseSearch
from app.web.certificate_pages import FAST_PATH, CertificatePages
from app.web.diagram_pages import DiagramRenderer
from app.web.exceptions import EXCEPTION_VIEWS, render_error
from app.web.i18n import load_translations
from app.web.middleware.body import BodyLimitMiddleware
from app.web.middleware.errors import ErrorPageMiddleware
from app.web.middleware.identity import LearnerIdentityMiddleware
from app.web.middleware.language import LanguageCookieMiddleware
from app.web.middleware.metrics import MetricsMiddleware, RequestMetrics
from app.web.middleware.page_cache import PageCacheMiddleware, warm
from app.web.middleware.refusal import refuse_body, refuse_cross_site, unknown_host
from app.web.middleware.security import SecurityMiddleware, TrustedOrigins, cross_site_routes
from app.web.openapi import document_unreadable_bodies
from app.web.routes import api_quiz, api_simulator, certificates, lab, newsletter, operations, pages, quiz, search
from app.web.routes.search import GLOSSARY_TITLE
from app.web.search_pages import SearchPages
from app.web.state import AppState
from app.web.templating import Templates
from app.web.templating.static import StaticAssets

# What the pages link from static/vendor/ (npm ci copies it there); without them every page would be a 500.
VENDOR_ASSETS = ("vendor/htmx.min.js", "vendor/swagger-ui/swagger-ui-bundle.js", "vendor/swagger-ui/swagger-ui.css")


def static_assets(static_dir: Path) -> StaticAssets:
    assets = StaticAssets(static_dir)
    missing = [path for path in VENDOR_ASSETS if path not in assets.digests]
    if missing:
        raise ConfigurationError(
            f"The front-end assets are missing from {static_dir / 'vendor'} ({', '.join(missing)}). "
            "Install them first: ./dev run does, or run npm ci in the project folder."
        )
    return assets


def build_app(settings: Settings, clock: Callable[[], datetime] = utc_now) -> FastAPI:
    configure_logging(settings)
    secret_key = settings.resolve_secret_key()
    keys = certificate_keys(settings)
    course = load_course(settings.content_dir, cache_dir=settings.content_cache_dir)
    catalog = load_quizzes(settings.content_dir, course)
    if settings.is_sqlite:
        settings.var_dir.mkdir(parents=True, exist_ok=True)
    database = Database.from_url(settings.sqlalchemy_url)
    try:
        migrations.ensure_schema(database, auto_upgrade=settings.is_sqlite)
    except BaseException:
        database.dispose()
        raise
    translations = load_translations()
    links = {"donation_url": settings.donation_url, "next_guide_url": settings.next_guide_url}
    templates = Templates(translations, course, settings.base_url, static_assets(settings.static_dir), links=links)
    metrics = RequestMetrics()
    trusted = TrustedOrigins.build(settings.base_url, settings.extra_origins, development=not settings.is_production)
    quiz_service = QuizService(database, catalog, clock=clock)
    certificate_services = certificate_service(settings, database, quiz_service, course, translations, clock, keys)
    state = AppState(
        settings=settings,
        secret_key=secret_key,
        database=database,
        course=course,
        translations=translations,
        templates=templates,
        diagrams=DiagramRenderer(templates, translations),
        metrics=metrics,
        trusted=trusted,
        quiz=quiz_service,
        certificates=certificate_services,
        certificate_pages=CertificatePages(certificate_services, templates),
        newsletter=newsletter_service(settings, database, translations),
        clock=clock,
        search_pages=SearchPages(
            templates,
            CourseSearch(course, {lang: translations[lang].gettext(GLOSSARY_TITLE) for lang in LANGUAGES}),
        ),
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        shared = [f"/{lang}/guides/{chapter.slug}" for chapter in course.published for lang in LANGUAGES]
        warming = None
        if settings.env is not Environment.TEST:  # tests build many apps; each renders what it reads
            warmed = [*shared, *(f"/{lang}/{page}" for lang in LANGUAGES for page in ("lab", "glossary"))]
            # After start-up, not before it: rendering these 18 pages took 3-4 s of a busy 2-core machine, which
            # every worker spent before answering /healthz. Meanwhile a page's first visitor renders it.
            warming = asyncio.create_task(warm(app, settings.base_url, warmed))
        yield
        if warming is not None:
            warming.cancel()
            with suppress(asyncio.CancelledError):
                await warming
        database.dispose()

    app = FastAPI(
        title="Interconnects",
        summary="A bilingual course on GPU interconnects: simulator and quizzes API.",
        version="1.0.0",
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
        lifespan=lifespan,
        exception_handlers=EXCEPTION_VIEWS,
    )
    app.state.interconnects = state
    app.router.redirect_slashes = False  # app.web.exceptions redirects, relative to the configured host
    app.mount("/static", templates.assets, name="static")
    routers = (
        operations.router,
        lab.router,
        api_quiz.router,
        quiz.router,
        api_simulator.router,
        certificates.api_router,
        certificates.router,
        newsletter.router,
        newsletter.one_click_router,
        search.router,
        pages.router,
    )
    for router in routers:
        app.include_router(router)
    document_unreadable_bodies(app)

    # Added innermost first. The page cache is outermost: a shared page it has seen is answered before anything
    # else runs, with the headers the inner layers gave it the first time (security headers included).
    app.add_middleware(LanguageCookieMiddleware)
    app.add_middleware(LearnerIdentityMiddleware, secret_key=secret_key)
    app.add_middleware(BodyLimitMiddleware, refuse=refuse_body, read_timeout_s=settings.body_read_timeout_s)
    app.add_middleware(ErrorPageMiddleware, render_error=render_error)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    # Per-learner pages are compressed per response; shared ones were compressed once (an encoded body is left
    # alone, and every shared body this large has its gzip variant).
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    app.add_middleware(
        SecurityMiddleware,
        trusted=trusted,
        refuse=refuse_cross_site,
        unknown_host=unknown_host,
        cross_site_allowed=cross_site_routes(app.routes),
    )
    fast_paths = {FAST_PATH: state.certificate_pages.recheck}
    app.add_middleware(PageCacheMiddleware, trusted=trusted, metrics=metrics, rechecks=fast_paths)
    return app
