"""The last resort: an unhandled exception becomes a 500 page (or JSON under /api/) in the learner's language.

It is a middleware of ours rather than Starlette's ServerErrorMiddleware, which sits outside every user
middleware, so that its 500 page carries the security headers too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.middleware.base import HttpMiddleware

logger = logging.getLogger(__name__)


class ErrorPageMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, render_error: Callable[[Request, int], Response]) -> None:
        self.app = app
        self.render_error = render_error

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        response_started = False

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            logger.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"))
            if response_started:
                raise
            try:
                response = self.render_error(Request(scope), 500)
            except Exception:  # the error page itself failed: still answer, plainly
                logger.exception("the error page failed to render")
                response = PlainTextResponse("Internal server error.", status_code=500)
            await response(scope, receive, send)
