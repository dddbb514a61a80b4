"""The lab (every interactive diagram on one page) and each diagram at its own address.

``/{lang}/lab/{diagram_id}`` answers an HTMX swap with the diagram fragment and anything else with a full page,
so a form submitted without JavaScript, a pushed URL and a shared link all show the same state. Bad input is
a 422 with the message inside the diagram's form. These routes are hot (every control change is a request), so
they call plain helpers rather than FastAPI dependencies.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, status
from starlette.responses import Response

from app.web.deps import app_state, require_language
from app.web.diagrams import DIAGRAMS
from app.web.diagrams.render import install, renderer_for
from app.web.htmx import VARY, wants_fragment
from app.web.state import AppState

router = APIRouter()

__all__ = ["install_diagrams", "router"]


def install_diagrams(state: AppState) -> None:
    install(state.templates, state.translations)


@router.get("/{lang}/lab", name="lab", include_in_schema=False)
async def lab(request: Request, lang: str) -> Response:
    language = require_language(lang)
    state = app_state(request)
    return state.templates.render_shared(request, "lab.html", language, {"diagram_ids": tuple(DIAGRAMS)})


@router.get("/{lang}/lab/{diagram_id}", name="diagram", include_in_schema=False)
async def diagram(request: Request, lang: str, diagram_id: str) -> Response:
    language = require_language(lang)
    if diagram_id not in DIAGRAMS:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    state = app_state(request)
    app = request.app

    def url(route_name: str, /, **params: Any) -> str:
        return str(app.url_path_for(route_name, **params))

    rendered = renderer_for(state.templates, state.translations).render(
        diagram_id, language, request.scope["query_string"], url
    )
    headers = {"vary": VARY}
    if wants_fragment(request):
        return Response(
            rendered.body, status_code=rendered.status_code, headers=headers, media_type="text/html; charset=utf-8"
        )
    return state.templates.render(
        request,
        "diagrams/page.html",
        language,
        {"diagram_id": diagram_id, "fragment": rendered.html, "invalid": rendered.status_code != 200},
        status_code=rendered.status_code,
        headers=headers,
    )
