"""HTMX request detection: a route answers with a fragment only for a real HTMX swap."""

from __future__ import annotations

from starlette.requests import Request

VARY = "HX-Request"


def wants_fragment(request: Request) -> bool:
    """True for an HTMX request, except a history restore, which needs the full page."""
    return request.headers.get("hx-request") == "true" and request.headers.get("hx-history-restore-request") != "true"
