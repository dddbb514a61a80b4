"""ASGI entry point: `uvicorn app.main:app`, or `create_app(settings)` for tests and tools."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from app.config import Settings, get_settings

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app(settings: Settings | None = None) -> FastAPI:
    from app.web.factory import build_app

    return build_app(settings or get_settings())


@cache
def _default_app() -> FastAPI:
    return create_app()


def __getattr__(name: str) -> FastAPI:
    # `app` is built on first access rather than at import: importing this module (tests, tools) must not
    # read the environment, load content or touch a database.
    if name == "app":
        return _default_app()
    raise AttributeError(name)
