"""Operations and discovery: health, metrics, sitemap, robots."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from sqlalchemy.exc import SQLAlchemyError

from app.web.deps import StateDep
from app.web.i18n import SUPPORTED_LANGUAGES

router = APIRouter()


@router.get(
    "/healthz",
    name="healthz",
    tags=["operations"],
    responses={503: {"description": "The database does not answer."}},
)
def healthz(state: StateDep) -> JSONResponse:
    try:
        state.database.ping()
    except SQLAlchemyError:
        return JSONResponse({"status": "error", "database": "unreachable"}, status_code=503)
    return JSONResponse({"status": "ok", "database": "ok"})


@router.get("/metrics", name="metrics", include_in_schema=False)
async def metrics(state: StateDep) -> Response:
    return Response(generate_latest(state.metrics.registry), media_type=CONTENT_TYPE_LATEST)


@router.get("/docs", name="docs", include_in_schema=False)
async def docs(request: Request, state: StateDep) -> Response:
    """Swagger UI for the JSON API, served from our own static files (no CDN, no inline script)."""
    return state.templates.render(request, "docs.html", "en")


@router.get("/robots.txt", name="robots", include_in_schema=False)
async def robots(state: StateDep) -> PlainTextResponse:
    lines = [
        "User-agent: *",
        "Disallow: /api/",
        "Disallow: /metrics",
        "",
        f"Sitemap: {state.settings.base_url}/sitemap.xml",
        "",
    ]
    return PlainTextResponse("\n".join(lines))


@router.get("/sitemap.xml", name="sitemap", include_in_schema=False)
async def sitemap(request: Request, state: StateDep) -> Response:
    base = state.settings.base_url
    pages: list[tuple[dict[str, str], str | None]] = [
        ({lang: request.app.url_path_for(name, lang=lang) for lang in SUPPORTED_LANGUAGES}, None)
        for name in ("home", "lab")
    ]
    for chapter in state.course.published:
        paths = {
            lang: request.app.url_path_for("chapter", lang=lang, slug=chapter.slug) for lang in SUPPORTED_LANGUAGES
        }
        last_updated = max(page.updated for page in chapter.pages.values()).isoformat()
        pages.append((paths, last_updated))
    entries = []
    for paths, updated in pages:
        alternates = "".join(
            f'<xhtml:link rel="alternate" hreflang="{language}" href={quoteattr(base + path)}/>'
            for language, path in paths.items()
        )
        lastmod = f"<lastmod>{updated}</lastmod>" if updated else ""
        for path in paths.values():
            entries.append(f"<url><loc>{escape(base + path)}</loc>{lastmod}{alternates}</url>")
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n' + "\n".join(entries) + "\n</urlset>\n"
    )
    return Response(xml, media_type="application/xml")
