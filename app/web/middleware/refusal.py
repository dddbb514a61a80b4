"""How the outer layers refuse a request, in the request's language: JSON `{"detail": ...}` under /api/, else
the error page. The middleware receive these as callables (built before any route runs, they cannot raise an
HTTPException for the exception views to answer)."""

from __future__ import annotations

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from app.i18n import _
from app.web import cache_policy
from app.web.exceptions import HTTP_MESSAGES, error_page, is_api
from app.web.i18n import request_language
from app.web.middleware.body import Refusal
from app.web.state import app_state

BODY_MESSAGES = {
    Refusal.TOO_LARGE: _("The request body is too large."),
    Refusal.FORM_TOO_LARGE: _("The form sent is too large."),
    Refusal.TOO_DEEP: _("The request body is nested too deeply to be an answer."),
    Refusal.TOO_SLOW: _("The request body arrived too slowly. Please try again."),
}
UNKNOWN_HOST = _(
    "Unknown host. This site is configured for %(base_url)s (the BASE_URL setting). To open it at another "
    "address, set BASE_URL to that address, or add the address to EXTRA_ORIGINS."
)


def _gettext(connection: HTTPConnection, message: str) -> str:
    return app_state(connection).translations[request_language(connection)].gettext(message)


def _answer(request: Request, status_code: int, message: str, page_message: str | None) -> Response:
    if is_api(request):
        return JSONResponse(
            {"detail": message}, status_code=status_code, headers=cache_policy.headers(cache_policy.NO_STORE)
        )
    return error_page(request, status_code, page_message)


def refuse_body(request: Request, status_code: int, reason: Refusal) -> Response:
    message = _gettext(request, BODY_MESSAGES[reason])
    return _answer(request, status_code, message, message)


def refuse_cross_site(request: Request) -> Response:
    response = _answer(request, 403, _gettext(request, HTTP_MESSAGES[403]), None)  # the 403 page says it all
    response.headers["connection"] = "close"  # its body, if it has one, is never read
    return response


def unknown_host(connection: HTTPConnection) -> str:
    return _gettext(connection, UNKNOWN_HOST) % {"base_url": app_state(connection).settings.base_url}
