"""CSRF protection for state-changing routes.

Two independent checks. The Origin check stops cross-site form posts outright in every current browser. The
token (an HMAC of the learner id, so any process can verify it without shared storage) covers clients that omit
Origin. HTML forms carry it in a hidden field and HTMX requests in the X-CSRF-Token header set by `hx-headers`.
The JSON API is also used by non-browser tools, which send no Origin: those pass, a foreign Origin does not.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status

from app.web.identity import learner_identity

CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def csrf_token(secret_key: str, learner_id: str) -> str:
    digest = hmac.new(secret_key.encode(), f"csrf:{learner_id}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _allowed_origins(request: Request) -> set[str]:
    own = f"{request.url.scheme}://{request.url.netloc}"
    return {own, request.app.state.interconnects.settings.base_url}


def origin_is_foreign(request: Request) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site") == "cross-site"
    return origin not in _allowed_origins(request)


class CsrfRejected(HTTPException):
    def __init__(self, reason: str) -> None:
        super().__init__(status_code=status.HTTP_403_FORBIDDEN, detail=reason)


async def require_csrf(request: Request) -> None:
    """For HTML form and HTMX routes: same origin and a valid token."""
    if request.method in SAFE_METHODS:
        return
    if origin_is_foreign(request):
        raise CsrfRejected("cross-origin")
    state = request.app.state.interconnects
    expected = csrf_token(state.secret_key, learner_identity(request).learner_id)
    supplied = request.headers.get(CSRF_HEADER)
    if supplied is None:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            value = (await request.form()).get(CSRF_FIELD)
            supplied = value if isinstance(value, str) else None
    if supplied is None or not hmac.compare_digest(supplied, expected):
        raise CsrfRejected("token")


async def require_same_origin_api(request: Request) -> None:
    """For the JSON API: tools without Origin may call it; a browser page on another site may not."""
    if request.method not in SAFE_METHODS and origin_is_foreign(request):
        raise CsrfRejected("cross-origin")


CsrfDep = Annotated[None, Depends(require_csrf)]
ApiOriginDep = Annotated[None, Depends(require_same_origin_api)]
