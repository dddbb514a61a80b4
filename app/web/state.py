"""Everything a request needs that is built once per process, and the one typed way to reach it."""

from __future__ import annotations

import gettext
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from starlette.requests import HTTPConnection

from app.certificates.service import CertificateService
from app.config import Settings
from app.content import Course
from app.db import Database
from app.newsletter.service import NewsletterService
from app.quiz.service import QuizService
from app.web.certificate_pages import CertificatePages
from app.web.diagram_pages import DiagramRenderer
from app.web.middleware.metrics import RequestMetrics
from app.web.middleware.security import TrustedOrigins
from app.web.search_pages import SearchPages
from app.web.templating import Templates


@dataclass(frozen=True, slots=True)
class AppState:
    settings: Settings
    secret_key: str
    database: Database
    course: Course
    translations: dict[str, gettext.GNUTranslations]
    templates: Templates
    diagrams: DiagramRenderer
    metrics: RequestMetrics
    trusted: TrustedOrigins
    quiz: QuizService
    certificates: CertificateService
    certificate_pages: CertificatePages
    newsletter: NewsletterService
    clock: Callable[[], datetime]
    search_pages: SearchPages


def app_state(connection: HTTPConnection) -> AppState:
    state: AppState = connection.app.state.interconnects
    return state
