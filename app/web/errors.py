"""Error responses: JSON `{"detail": ...}` under /api, an HTML page in the learner's language elsewhere.

Unhandled exceptions are caught by ErrorPageMiddleware rather than by Starlette's ServerErrorMiddleware: that
one sits outside every user middleware, so its 500 page would miss the security headers.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.i18n import LANGUAGE_COOKIE, SUPPORTED_LANGUAGES, negotiate_language
from app.web.templating import Templates
from app.web.validation_messages import validation_message

logger = logging.getLogger(__name__)

API_PREFIX = "/api/"


def request_language(request: Request) -> str:
    """The path's language, else an API call's ?lang=, else the cookie, else Accept-Language."""
    first_segment = request.url.path.strip("/").split("/", 1)[0]
    if first_segment in SUPPORTED_LANGUAGES:
        return first_segment
    query_language = request.query_params.get("lang")
    if query_language in SUPPORTED_LANGUAGES:
        return query_language
    return negotiate_language(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))


def is_api(request: Request) -> bool:
    return request.url.path.startswith(API_PREFIX) or request.url.path == "/openapi.json"


def error_page(request: Request, status_code: int, headers: dict[str, str] | None = None) -> Response:
    language = request_language(request)
    templates: Templates = request.app.state.interconnects.templates
    return templates.render(
        request,
        "errors/error.html",
        language,
        {"status_code": status_code},
        status_code=status_code,
        headers=headers,
    )


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers or {})
    if is_api(request):
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)
    return error_page(request, exc.status_code, headers)


async def validation_exception_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if is_api(request):
        translations = request.app.state.interconnects.translations[request_language(request)]
        return JSONResponse({"detail": validation_message(exc.errors(), translations)}, status_code=422)
    return error_page(request, 422)


class ErrorPageMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
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
            response = self._error_response(scope)
            await response(scope, receive, send)

    def _error_response(self, scope: Scope) -> Response:
        request = Request(scope)
        try:
            if is_api(request):
                return JSONResponse({"detail": "Internal server error."}, status_code=500)
            return error_page(request, 500)
        except Exception:  # the error page itself failed: still answer, plainly
            logger.exception("the error page failed to render")
            return PlainTextResponse("Internal server error.", status_code=500)


EXCEPTION_HANDLERS: dict[Any, Any] = {
    StarletteHTTPException: http_exception_handler,
    HTTPException: http_exception_handler,
    RequestValidationError: validation_exception_handler,
}
