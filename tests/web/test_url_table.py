"""Templates build URLs through a name -> route table (Starlette would try every route in turn)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from starlette.requests import Request

from app.web.templating.urls import url_path


def _request(app: FastAPI) -> Request:
    return Request({"type": "http", "app": app, "method": "GET", "path": "/", "headers": []})


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("chapter", {"lang": "ko", "slug": "nvlink"}, "/ko/guides/nvlink"),
        ("attempt_answer", {"lang": "en", "attempt_id": "a1", "question_id": "q1"}, "/en/attempts/a1/questions/q1"),
        ("static", {"path": "css/site.css"}, "/static/css/site.css"),
    ],
)
def test_urls_match_starlette(shared_app: FastAPI, name: str, params: dict[str, Any], expected: str) -> None:
    assert url_path(_request(shared_app), name, **params) == expected
    assert str(shared_app.url_path_for(name, **params)) == expected


def test_every_named_route_is_in_the_table(shared_app: FastAPI) -> None:
    # Routes inside included routers and plain Starlette routes (the answer route) included: a name missing from
    # the table still works, through Starlette's slow search, so only this test notices.
    url_path(_request(shared_app), "home", lang="en")
    table = shared_app.state.routes_by_name
    for name in (
        "home",
        "chapter",
        "quiz",
        "attempt",
        "attempt_answer",
        "attempt_finish",
        "lab",
        "static",
        "api_start_attempt",
        "healthz",
    ):
        assert name in table, name
