"""Route URLs for templates: Starlette's url_path_for through a name -> route table.

Starlette finds a route's URL by trying every route in turn; the table is built once per app, from every route,
including those inside included routers (FastAPI keeps an included router as one entry holding its routes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from starlette.requests import Request
from starlette.routing import NoMatchFound
from starlette.types import ASGIApp


def named_routes(routes: Iterable[Any]) -> Iterator[tuple[str, Any]]:
    for route in routes:
        included = getattr(route, "effective_route_contexts", None)
        if included is not None:
            yield from named_routes(included())
            continue
        # FastAPI's context for a plain Starlette route has an empty name; the route it wraps has the real one.
        name = getattr(route, "name", None) or getattr(getattr(route, "original_route", None), "name", None)
        if name:
            yield name, route


def url_path_for(app: ASGIApp, route_name: str, /, **params: Any) -> str:
    state = app.state  # type: ignore[attr-defined]
    table: dict[str, Any] | None = getattr(state, "routes_by_name", None)
    if table is None:
        table = {}
        for name, route in named_routes(app.routes):  # type: ignore[attr-defined]
            table.setdefault(name, route)
        state.routes_by_name = table
    route = table.get(route_name)
    if route is not None:
        try:
            return str(route.url_path_for(route_name, **params))
        except NoMatchFound:  # another route of that name may take these parameters
            pass
    return str(app.url_path_for(route_name, **params))  # type: ignore[attr-defined]


def url_path(request: Request, route_name: str, /, **params: Any) -> str:
    return url_path_for(request.app, route_name, **params)
