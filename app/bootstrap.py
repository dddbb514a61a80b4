"""Builds the feature services from Settings, for the web app (app.web.factory) and the CLI (app.cli) alike, so
that a certificate issued from the command line is signed, numbered and stored exactly as one claimed on the
site. Nothing here knows the web: the caller hands in the translations it loaded."""

from __future__ import annotations

import gettext
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from app.certificates.course import Course as CertificateCourse
from app.certificates.course import content_version
from app.certificates.credential import Issuer
from app.certificates.keys import KeyFileError, KeyRing
from app.certificates.service import CertificateService
from app.config import ConfigurationError, Settings
from app.content import Course
from app.db import Database
from app.newsletter.mail import Mailer
from app.newsletter.sender import IssueSender
from app.newsletter.service import NewsletterService
from app.newsletter.transport import Transport, transport_for
from app.quiz.service import QuizService

ISSUER_NAME = "Interconnects"


def utc_now() -> datetime:
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
    clock: Callable[[], datetime] = utc_now,
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
    clock: Callable[[], datetime] = utc_now,
) -> IssueSender:
    return IssueSender(database, _transport(settings, keep_open=True), _mailer(settings, translations), clock)
