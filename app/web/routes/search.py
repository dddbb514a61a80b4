"""The glossary, the search and its OpenSearch description: shared pages, the same bytes for everyone.

``/{lang}/search?q=…`` answers an HTMX request (the search box as-you-type) with the results fragment and any
other request with the full page; both say `Vary: HX-Request`. A query that is empty, absurdly long or full of
control characters still gets a page (app/search/text.py cleans and cuts it), never an error.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.i18n import _
from app.web.caching import RepresentationResponse
from app.web.deps import LanguageDep, StateDep
from app.web.htmx import wants_fragment
from app.web.templating.seo import defined_term_set
from app.web.templating.urls import url_path

router = APIRouter(include_in_schema=False)
GLOSSARY_TITLE = _("Glossary")


@router.get("/{lang}/glossary", name="glossary")
async def glossary(request: Request, lang: LanguageDep, state: StateDep) -> Response:
    glossary = state.course.glossary
    page_url = state.settings.base_url + url_path(request, "glossary", lang=lang)
    name = f"{state.translations[lang].gettext(GLOSSARY_TITLE)} · {state.course.titles[lang]}"
    context = {"glossary": glossary, "term_set": defined_term_set(glossary, lang, page_url, name)}
    return RepresentationResponse(state.templates.shared(request, "glossary.html", lang, context))


@router.get("/{lang}/search", name="search")
async def search(request: Request, lang: LanguageDep, state: StateDep, q: str = "") -> Response:
    representation = state.search_pages.representation(request.app, lang, q, fragment=wants_fragment(request))
    return RepresentationResponse(representation)


@router.get("/{lang}/opensearch.xml", name="opensearch")
async def opensearch(request: Request, lang: LanguageDep, state: StateDep) -> Response:
    return RepresentationResponse(state.search_pages.opensearch(request.app, lang))
