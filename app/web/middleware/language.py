"""Remembers the language of the last per-learner page a learner opened, so that `/` sends them back to it.

One middleware rather than a call in every route: any private HTML page under /{lang}/ counts, whichever
feature serves it. Shared pages (chapters, the lab) never set it: they must be the same bytes for everyone, with
no Set-Cookie, so that any cache can keep them; `/` falls back to Accept-Language for a reader who only read.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.i18n import LANGUAGES
from app.web import cache_policy
from app.web.cookies import cookie_name, set_cookie_header
from app.web.i18n import LANGUAGE_COOKIE as COOKIE
from app.web.middleware.send import on_response_start

COOKIE_MAX_AGE_S = 365 * 24 * 3600


class LanguageCookieMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        language = scope["path"].split("/", 2)[1]
        secure = scope.get("scheme") == "https"
        if language not in LANGUAGES or HTTPConnection(scope).cookies.get(cookie_name(COOKIE, secure)) == language:
            await self.app(scope, receive, send)
            return

        def remember(message: Message) -> None:
            headers = MutableHeaders(scope=message)
            private = not cache_policy.is_shared(headers.get(cache_policy.HEADER, ""))
            if message["status"] == 200 and private and headers.get("content-type", "").startswith("text/html"):
                headers.append("set-cookie", set_cookie_header(COOKIE, language, COOKIE_MAX_AGE_S, secure).decode())

        await self.app(scope, receive, on_response_start(send, remember))
