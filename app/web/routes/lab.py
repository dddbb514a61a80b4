"""The lab (every interactive diagram on one page) and each diagram at its own address.

``/{lang}/lab?topology.gpu_b=6#diagram-topology`` is the lab with each diagram in the state its prefixed fields ask
for: the address diagrams.js keeps up to date, so Back, reload and a shared link restore the whole lab.
``/{lang}/lab/{diagram_id}`` answers an HTMX swap with the diagram fragment and anything else with a full page of
that diagram alone. Bad input is a 422 with the message inside the diagram's form. Every answer depends only on
the address, so each is a shared Representation that the page cache and any proxy may keep.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, status
from starlette.responses import Response

from app.diagrams import DIAGRAMS
from app.web.caching import RepresentationResponse
from app.web.deps import LanguageDep, StateDep
from app.web.htmx import wants_fragment

router = APIRouter(include_in_schema=False)


@router.get("/{lang}/lab", name="lab")
async def lab(request: Request, lang: LanguageDep, state: StateDep) -> Response:
    return RepresentationResponse(
        state.diagrams.shared_page(request, "lab.html", lang, {"diagram_ids": tuple(DIAGRAMS)})
    )


@router.get("/{lang}/lab/{diagram_id}", name="diagram")
async def diagram(request: Request, lang: LanguageDep, diagram_id: str, state: StateDep) -> Response:
    if diagram_id not in DIAGRAMS:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    representation = state.diagrams.representation(
        request.app, diagram_id, lang, request.scope["query_string"], fragment=wants_fragment(request)
    )
    return RepresentationResponse(representation)
