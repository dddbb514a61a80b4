"""Builds the ASGI application: content, database, templates, middleware, routes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app import migrations
from app.config import Settings
from app.content import load_course
from app.db import Database
from app.log import configure_logging
from app.quiz.bank import load_quizzes
from app.web.errors import EXCEPTION_HANDLERS, ErrorPageMiddleware
from app.web.i18n import load_translations
from app.web.identity import LearnerIdentityMiddleware
from app.web.language_cookie import LanguageCookieMiddleware
from app.web.metrics import MetricsMiddleware, RequestMetrics
from app.web.routes import api_quiz, api_simulator, lab, operations, pages, quiz
from app.web.security import SecurityHeadersMiddleware
from app.web.state import AppState
from app.web.templating import STATIC_DIR, Templates


def build_app(settings: Settings) -> FastAPI:
    configure_logging(settings)
    secret_key = settings.resolve_secret_key()
    course = load_course(settings.content_dir)
    quizzes = load_quizzes(settings.content_dir, course)
    if settings.is_sqlite:
        settings.var_dir.mkdir(parents=True, exist_ok=True)
    database = Database.from_url(settings.sqlalchemy_url)
    try:
        migrations.ensure_schema(database, auto_upgrade=settings.is_sqlite)
    except BaseException:
        database.dispose()
        raise
    translations = load_translations()
    metrics = RequestMetrics()
    state = AppState(
        settings=settings,
        secret_key=secret_key,
        database=database,
        course=course,
        translations=translations,
        templates=Templates(translations),
        metrics=metrics,
        quizzes=quizzes,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        database.dispose()

    app = FastAPI(
        title="Interconnects",
        summary="A bilingual course on GPU interconnects: simulator, quizzes and certificates API.",
        version="1.0.0",
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json",
        lifespan=lifespan,
        exception_handlers=EXCEPTION_HANDLERS,
    )
    app.state.interconnects = state
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(operations.router)
    app.include_router(lab.router)
    lab.install_diagrams(state)
    app.include_router(api_quiz.router)
    app.include_router(quiz.router)
    app.include_router(api_simulator.router)
    app.include_router(pages.router)

    # Added innermost first: security headers wrap everything, so error pages and static files carry them too.
    app.add_middleware(LanguageCookieMiddleware)
    app.add_middleware(LearnerIdentityMiddleware, secret_key=secret_key)
    app.add_middleware(ErrorPageMiddleware)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(SecurityHeadersMiddleware)
    return app
