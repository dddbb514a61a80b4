"""Remembers the language of the last page a learner read, so that `/` sends them back to it.

One middleware rather than a call in every route: any successful HTML page under /{lang}/ counts, whichever
feature serves it (chapters, lab, quizzes).
"""

from __future__ import annotations

from http.cookies import SimpleCookie

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.i18n import LANGUAGE_COOKIE, SUPPORTED_LANGUAGES

COOKIE_MAX_AGE_S = 365 * 24 * 3600


class LanguageCookieMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        language = scope["path"].split("/", 2)[1]
        if language not in SUPPORTED_LANGUAGES or HTTPConnection(scope).cookies.get(LANGUAGE_COOKIE) == language:
            await self.app(scope, receive, send)
            return
        secure = scope.get("scheme") == "https"

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                headers = MutableHeaders(scope=message)
                if headers.get("content-type", "").startswith("text/html"):
                    cookie: SimpleCookie = SimpleCookie()
                    cookie[LANGUAGE_COOKIE] = language
                    morsel = cookie[LANGUAGE_COOKIE]
                    morsel["path"] = "/"
                    morsel["max-age"] = COOKIE_MAX_AGE_S
                    morsel["httponly"] = True
                    morsel["samesite"] = "Lax"
                    if secure:
                        morsel["secure"] = True
                    headers.append("set-cookie", morsel.OutputString())
            await send(message)

        await self.app(scope, receive, send_with_cookie)
