"""Lookups shared by the routers, as plain functions and as FastAPI dependency aliases.

Hot page routes call the plain functions: each FastAPI dependency costs tens of microseconds to resolve, which is
a third of a cached chapter page's whole budget.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request, status

from app.content import Chapter
from app.web.i18n import SUPPORTED_LANGUAGES
from app.web.state import AppState


def app_state(request: Request) -> AppState:
    state: AppState = request.app.state.interconnects
    return state


def require_language(lang: str) -> str:
    if lang not in SUPPORTED_LANGUAGES:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    return lang


def require_chapter(state: AppState, slug: str) -> Chapter:
    chapter = state.course.chapter(slug)
    if chapter is None:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND)
    return chapter


async def _state_dependency(request: Request) -> AppState:
    return app_state(request)


async def _language_dependency(lang: str) -> str:
    return require_language(lang)


StateDep = Annotated[AppState, Depends(_state_dependency)]
LanguageDep = Annotated[str, Depends(_language_dependency)]
