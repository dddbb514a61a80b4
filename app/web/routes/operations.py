"""Operations and discovery: health, metrics, sitemap, robots."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.i18n import _
from app.web.cache_policy import NO_STORE, headers
from app.web.deps import StateDep
from app.web.i18n import request_language
from app.web.state import AppState
from app.web.templating.seo import sitemap_xml
from app.web.templating.urls import url_path

router = APIRouter()

UNCACHED = headers(NO_STORE)  # health is now, never a copy


@router.get(
    "/healthz",
    name="healthz",
    tags=["operations"],
    responses={503: {"description": "The database does not answer."}},
)
def healthz(state: StateDep) -> JSONResponse:
    if not state.database.answers():
        return JSONResponse({"status": "error", "database": "unreachable"}, status_code=503, headers=UNCACHED)
    return JSONResponse({"status": "ok", "database": "ok"}, headers=UNCACHED)


NOTHING_HERE = _("There is nothing at this address.")
METRICS_UNAUTHORIZED = _("The metrics need the bearer token that METRICS_TOKEN sets.")


def _bearer_token(authorization: str | None) -> bytes | None:
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip().encode() if scheme.lower() == "bearer" and token.strip() else None


def _metrics_refusal(request: Request, state: AppState) -> Response | None:
    """Claims issued and per-route counts are the operator's: with METRICS_TOKEN set, only its bearer reads them;
    in production without one, nobody does (404, as if there were nothing here); in development, anyone."""
    translations = state.translations[request_language(request)]
    configured = state.settings.metrics_token
    if configured is None:
        if state.settings.is_production:
            return PlainTextResponse(translations.gettext(NOTHING_HERE), status_code=404, headers=UNCACHED)
        return None
    presented = _bearer_token(request.headers.get("authorization"))
    if presented is not None and hmac.compare_digest(presented, configured.get_secret_value().encode()):
        return None
    refusal_headers = UNCACHED | {"www-authenticate": 'Bearer realm="metrics"'}
    return PlainTextResponse(translations.gettext(METRICS_UNAUTHORIZED), status_code=401, headers=refusal_headers)


@router.get("/metrics", name="metrics", include_in_schema=False)
async def metrics(request: Request, state: StateDep) -> Response:
    refusal = _metrics_refusal(request, state)
    if refusal is not None:
        return refusal
    return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST, headers=UNCACHED)


@router.get("/docs", name="docs", include_in_schema=False)
async def docs(request: Request, state: StateDep) -> Response:
    """Swagger UI for the JSON API, served from our own static files (no CDN, no inline script)."""
    return state.templates.page(request, "docs.html", "en")


@router.get("/robots.txt", name="robots", include_in_schema=False)
async def robots(state: StateDep) -> PlainTextResponse:
    lines = [
        "User-agent: *",
        "Disallow: /api/",
        "Disallow: /metrics",
        "",
        f"Sitemap: {state.settings.base_url}/sitemap.xml",
    ]
    return PlainTextResponse("\n".join([*lines, ""]))


@router.get("/sitemap.xml", name="sitemap", include_in_schema=False)
async def sitemap(request: Request, state: StateDep) -> Response:
    def url(route_name: str, **params: str) -> str:
        return url_path(request, route_name, **params)

    return Response(sitemap_xml(state.course, state.settings.base_url, url), media_type="application/xml")
