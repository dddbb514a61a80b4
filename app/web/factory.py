"""Builds the ASGI application: content, database, services, templates, middleware, routes."""

from __future__ import annotations

import gettext
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import HTTPConnection

from app import migrations
from app.certificates.credential import Issuer
from app.certificates.keys import KeyFileError, KeyRing
from app.certificates.service import CertificateService, content_version
from app.certificates.service import Course as CertificateCourse
from app.config import ConfigurationError, Environment, Settings
from app.content import Course, load_course
from app.db import Database
from app.i18n import LANGUAGES, _
from app.log import configure_logging
from app.newsletter.mail import Mailer
from app.newsletter.sender import IssueSender
from app.newsletter.service import NewsletterService
from app.newsletter.transport import Transport, transport_for
from app.quiz.bank import load_quizzes
from app.quiz.service import QuizService
from app.search import CourseSearch
from app.web.diagrams.render import DiagramRenderer
from app.web.exceptions import EXCEPTION_VIEWS, render_error
from app.web.i18n import load_translations, request_language
from app.web.middleware.errors import ErrorPageMiddleware
from app.web.middleware.identity import LearnerIdentityMiddleware
from app.web.middleware.json_body import JsonBodyMiddleware
from app.web.middleware.language import LanguageCookieMiddleware
from app.web.middleware.metrics import MetricsMiddleware, RequestMetrics
from app.web.middleware.page_cache import PageCacheMiddleware, warm
from app.web.middleware.security import SecurityMiddleware, TrustedOrigins
from app.web.routes import api_quiz, api_simulator, certificates, lab, newsletter, operations, pages, quiz, search
from app.web.routes.search import GLOSSARY_TITLE
from app.web.search_pages import SearchPages
from app.web.state import AppState
from app.web.templating import STATIC_DIR, Templates
from app.web.templating.static import StaticAssets

JSON_BODY_MESSAGES = {
    "too_large": _("The request body is too large."),
    "too_deep": _("The request body is nested too deeply to be an answer."),
}
ISSUER_NAME = "Interconnects"


def _utc_now() -> datetime:
    return datetime.now(UTC)


def certificate_keys(settings: Settings) -> tuple[KeyRing, Path]:
    """The signing keys: the configured file, or in development one generated under VAR_DIR."""
    path, may_generate = settings.resolve_certificate_key_file()
    try:
        return (KeyRing.load_or_generate(path) if may_generate else KeyRing.load(path)), path
    except KeyFileError as error:
        raise ConfigurationError(str(error)) from None


def certificate_service(
    settings: Settings,
    database: Database,
    quiz: QuizService,
    course: Course,
    translations: Mapping[str, gettext.GNUTranslations],
    clock: Callable[[], datetime],
    keys: tuple[KeyRing, Path] | None = None,
) -> CertificateService:
    ring, key_file = keys or certificate_keys(settings)
    return CertificateService(
        database,
        quiz,
        ring,
        clock,
        issuer=Issuer(settings.base_url, ISSUER_NAME),
        course=CertificateCourse(course.titles, course.descriptions, content_version(settings.content_dir)),
        translations=translations,
        key_file=key_file,
    )


def _mailer(settings: Settings, translations: Mapping[str, gettext.GNUTranslations]) -> Mailer:
    return Mailer(settings.base_url, translations, settings.mail_from)


def _transport(settings: Settings, keep_open: bool) -> Transport:
    smtp_url = settings.smtp_url.get_secret_value() if settings.smtp_url else None
    return transport_for(smtp_url, settings.resolved_outbox_dir, keep_open)


def newsletter_service(
    settings: Settings, database: Database, translations: Mapping[str, gettext.GNUTranslations]
) -> NewsletterService:
    return NewsletterService(database, _transport(settings, keep_open=False), _mailer(settings, translations))


def issue_sender(
    settings: Settings,
    database: Database,
    translations: Mapping[str, gettext.GNUTranslations],
    clock: Callable[[], datetime] = _utc_now,
) -> IssueSender:
    return IssueSender(database, _transport(settings, keep_open=True), _mailer(settings, translations), clock)


def build_app(settings: Settings, clock: Callable[[], datetime] = _utc_now) -> FastAPI:
    configure_logging(settings)
    secret_key = settings.resolve_secret_key()
    keys = certificate_keys(settings)
    course = load_course(settings.content_dir)
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
    templates = Templates(translations, course, settings.base_url, StaticAssets(STATIC_DIR), links=links)
    metrics = RequestMetrics()
    trusted = TrustedOrigins.build(settings.base_url, settings.extra_origins, development=not settings.is_production)
    quiz_service = QuizService(database, catalog, clock=clock)
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
        certificates=certificate_service(settings, database, quiz_service, course, translations, clock, keys),
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
        if settings.env is not Environment.TEST:  # tests build many apps; each renders what it reads
            warmed = [*shared, *(f"/{lang}/{page}" for lang in LANGUAGES for page in ("lab", "glossary"))]
            await warm(app, settings.base_url, warmed)
        yield
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

    def json_body_message(connection: HTTPConnection, reason: str) -> str:
        return translations[request_language(connection)].gettext(JSON_BODY_MESSAGES[reason])

    # Added innermost first. The page cache is outermost: a shared page it has seen is answered before anything
    # else runs, with the headers the inner layers gave it the first time (security headers included).
    app.add_middleware(LanguageCookieMiddleware)
    app.add_middleware(LearnerIdentityMiddleware, secret_key=secret_key)
    app.add_middleware(JsonBodyMiddleware, message_for=json_body_message)
    app.add_middleware(ErrorPageMiddleware, render_error=render_error)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    # Per-learner pages are compressed per response; shared ones were compressed once (an encoded body is left
    # alone, and every shared body this large has its gzip variant).
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    app.add_middleware(SecurityMiddleware, trusted=trusted)
    app.add_middleware(PageCacheMiddleware, trusted=trusted, metrics=metrics)
    return app
