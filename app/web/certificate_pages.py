"""The verification page's bytes, made once per (visitor's language, certificate view), and the page cache's fast
path for /c/{ID}.

A page shows nothing but the certificate view (frozen and hashable by what the page shows, verdict included)
in the visitor's language, so those two are the key of its bytes and their gzip. The page cache in front
(app/web/middleware/page_cache.py) replays them only through `recheck`, registered under `FAST_PATH` when the app
is built: it verifies the certificate again for that request (stored bytes, keys, clock, status bit) and answers
the bytes for the new view, or declines (an unknown id, a view not rendered yet), and the app answers in full.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection, Request

from app.certificates.readmodels import CertificateView
from app.certificates.service import CertificateService
from app.remembered import Remembered
from app.web import cache_policy
from app.web.caching import RecheckedResponse, Representation
from app.web.htmx import VARY
from app.web.i18n import request_language
from app.web.templating import HTML, Templates

FAST_PATH = "certificate"
PAGES_REMEMBERED = 1024
PAGE_HEADERS = {"x-robots-tag": "noindex", "vary": f"Accept-Language, Cookie, {VARY}"}
PAGE_CACHE_CONTROL = cache_policy.REVALIDATE  # verified on every request: a cache must ask again, every time


class CertificatePages:
    def __init__(self, certificates: CertificateService, templates: Templates) -> None:
        self.certificates = certificates
        self.templates = templates
        self._pages: Remembered[tuple[str, CertificateView], Representation] = Remembered(PAGES_REMEMBERED)

    def response(
        self, request: Request, language: str, view: CertificateView, context: dict[str, object]
    ) -> RecheckedResponse:
        """The page for a view verified just now, rendered the first time this (language, view) is seen."""
        key = (language, view)
        prepared = self._pages.get(key)
        if prepared is None:
            html = self.templates.render_to_string(request.app, "certificates/certificate.html", language, context)
            prepared = Representation.build(html.encode(), HTML, PAGE_CACHE_CONTROL, headers=PAGE_HEADERS.items())
            self._pages.put(key, prepared)
        return RecheckedResponse(prepared, FAST_PATH, view.id)

    async def recheck(self, connection: HTTPConnection, certificate_id: str) -> Representation | None:
        """The page cache's fast path: the certificate verified again now, and its page if already made."""
        again = await self.certificates.recheck(certificate_id)
        return self._pages.get((request_language(connection), again)) if again is not None else None
