"""Languages: negotiation (cookie, then Accept-Language) and gettext catalogs compiled from the .po files.

The catalogs are compiled in memory at start-up, so there is no .mo build step to forget and no stale binary.
"""

from __future__ import annotations

import gettext
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from starlette.requests import HTTPConnection

from app.i18n import DEFAULT_LANGUAGE, LANGUAGES
from app.web.cookies import cookie_name

LANGUAGE_COOKIE = "lang"

TRANSLATIONS_DIR = Path(__file__).resolve().parent / "translations"


def load_translations(directory: Path = TRANSLATIONS_DIR) -> dict[str, gettext.GNUTranslations]:
    catalogs: dict[str, gettext.GNUTranslations] = {}
    for language in LANGUAGES:
        po_path = directory / language / "LC_MESSAGES" / "messages.po"
        with po_path.open("rb") as po_file:
            catalog = read_po(po_file, locale=language)
        buffer = BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        catalogs[language] = gettext.GNUTranslations(buffer)
    return catalogs


def parse_accept_language(header: str) -> list[str]:
    """Language tags from an Accept-Language header, best first (RFC 9110 §12.5.4 quality values)."""
    weighted: list[tuple[float, int, str]] = []
    for position, item in enumerate(header.split(",")):
        parts = item.strip().split(";")
        tag = parts[0].strip().lower()
        if not tag:
            continue
        quality = 1.0
        for parameter in parts[1:]:
            name, _, value = parameter.strip().partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            weighted.append((-quality, position, tag))
    return [tag for _, _, tag in sorted(weighted)]


def negotiate_language(cookie_value: str | None, accept_language: str | None) -> str:
    if cookie_value in LANGUAGES:
        return cookie_value
    for tag in parse_accept_language(accept_language or ""):
        primary = tag.split("-")[0]
        if primary in LANGUAGES:
            return primary
    return DEFAULT_LANGUAGE


def request_language(connection: HTTPConnection) -> str:
    """The path's language, else an API call's ?lang=, else the cookie, else Accept-Language."""
    path: str = connection.scope["path"]  # not connection.url, which parses the whole URL
    first_segment = path.strip("/").split("/", 1)[0]
    if first_segment in LANGUAGES:
        return first_segment
    query_language = connection.query_params.get("lang")
    if query_language in LANGUAGES:
        return query_language
    return preferred_language(connection)


def preferred_language(connection: HTTPConnection) -> str:
    """The remembered language (cookie), else the browser's (Accept-Language), else English."""
    secure = connection.scope.get("scheme") in ("https", "wss")
    cookie = connection.cookies.get(cookie_name(LANGUAGE_COOKIE, secure))
    return negotiate_language(cookie, connection.headers.get("accept-language"))
