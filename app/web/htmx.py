"""HTMX request detection: a route answers with a fragment only for a real HTMX swap."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.requests import Request

VARY = "HX-Request"


def wants_fragment_headers(headers: Headers) -> bool:
    """True for an HTMX request, except a history restore, which needs the full page."""
    return headers.get("hx-request") == "true" and headers.get("hx-history-restore-request") != "true"


def wants_fragment(request: Request) -> bool:
    return wants_fragment_headers(request.headers)
