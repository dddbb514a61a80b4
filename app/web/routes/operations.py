"""Operations and discovery: health, metrics, sitemap, robots."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from app.web.deps import StateDep
from app.web.templating.seo import sitemap_xml
from app.web.templating.urls import url_path

router = APIRouter()

NO_STORE = {"cache-control": "no-store"}


@router.get(
    "/healthz",
    name="healthz",
    tags=["operations"],
    responses={503: {"description": "The database does not answer."}},
)
def healthz(state: StateDep) -> JSONResponse:
    if not state.database.answers():
        return JSONResponse({"status": "error", "database": "unreachable"}, status_code=503, headers=NO_STORE)
    return JSONResponse({"status": "ok", "database": "ok"}, headers=NO_STORE)


@router.get("/metrics", name="metrics", include_in_schema=False)
async def metrics(state: StateDep) -> Response:
    return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)


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
