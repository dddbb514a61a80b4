"""Shared by the web tests of the quizzes: an app on a test database, learners as the server knows them, answers
computed from the bank (as only tests may), and client addresses. A helper module, not a test module."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from itsdangerous import URLSafeSerializer
from sqlalchemy import func, select
from starlette.types import ASGIApp, Receive, Scope, Send

import app.models  # noqa: F401  (every table, for the counts below)
from app.context import RequestContext
from app.db import Base
from app.quiz.grading import expected_in_unit
from app.quiz.readmodels import AttemptView, DrawnView
from app.quiz.service import QuizPolicy
from app.web.factory import build_app
from app.web.state import AppState
from tests.conftest import GENEROUS_POLICY, SettingsFactory
from tests.unit.certificates.helpers import GENEROUS

HX = {"HX-Request": "true"}


class Clock:
    """A clock the test moves: the app reads it for every request."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def quiz_app(
    database_url: str,
    make_settings: SettingsFactory,
    policy: QuizPolicy | None = GENEROUS_POLICY,
    clock: Callable[[], datetime] | None = None,
    **settings: Any,
) -> FastAPI:
    """The real app on `database_url` (migrated). `policy=None` keeps the production rate limits; the default
    lifts them, so that no order of tests trips them."""
    built = build_app(make_settings(database_url=database_url, **settings), clock or (lambda: datetime.now(UTC)))
    if policy is not None:
        state_of(built).quiz.policy = policy
    return built


def certificate_app(tmp_path: Path, make_settings: SettingsFactory, **settings: Any) -> FastAPI:
    """``quiz_app`` on a SQLite file under ``tmp_path``, with the certificate rate limits lifted as well."""
    built = quiz_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", make_settings, **settings)
    state_of(built).certificates.policy = GENEROUS
    return built


def state_of(application: FastAPI) -> AppState:
    state: AppState = application.state.interconnects
    return state


def learner_of(application: FastAPI, client: TestClient) -> str:
    cookie = client.cookies.get("learner")
    assert cookie is not None, "the client has no learner cookie yet"
    learner_id: str = URLSafeSerializer(state_of(application).secret_key, salt="learner-id").loads(cookie)
    return learner_id


def attempt_of(application: FastAPI, client: TestClient, attempt_id: str) -> AttemptView:
    """The attempt as the service holds it, with the bank's right answers behind it (tests only)."""
    state = state_of(application)
    context = RequestContext(learner_of(application, client), True, "en", "test", state.clock())
    return asyncio.run(state.quiz.attempt(context, attempt_id))


def count(application: FastAPI, table: type[Base]) -> int:
    with state_of(application).database.session() as session:
        return int(session.scalar(select(func.count()).select_from(table)) or 0)


def start_page_attempt(client: TestClient, landing: str, **headers: str) -> str:
    """Start from a landing page's form, as a browser without JavaScript does; the new attempt's id."""
    response = client.post(landing, headers=headers, follow_redirects=False)
    assert response.status_code == 303, response.text
    match = re.fullmatch(r"/(en|ko)/attempts/([A-Za-z0-9_-]+)", response.headers["location"])
    assert match is not None, response.headers["location"]
    return match.group(2)


def start_api_attempt(client: TestClient, quiz_id: str = "nvlink", lang: str = "en") -> dict[str, Any]:
    response = client.post(f"/api/v1/quizzes/{quiz_id}/attempts?lang={lang}")
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def right_value(drawn: DrawnView) -> float:
    return expected_in_unit(drawn.question, drawn.parameters)


def right_answer(drawn: DrawnView) -> dict[str, Any]:
    """An API answer body that is right for this drawn question."""
    if drawn.type == "numeric":
        return {"question_id": drawn.id, "value": right_value(drawn), "unit": drawn.unit}
    return {"question_id": drawn.id, "tokens": [s.token for s in drawn.options if s.option.correct]}


def wrong_answer(drawn: DrawnView) -> dict[str, Any]:
    if drawn.type == "numeric":
        return {"question_id": drawn.id, "value": 3 * right_value(drawn), "unit": drawn.unit}
    return {"question_id": drawn.id, "tokens": wrong_tokens(drawn)}


def wrong_tokens(drawn: DrawnView) -> list[str]:
    """A wrong choice: a wrong option, or where every option is right ("choose all" with all correct), only one
    of them."""
    wrong = [shown.token for shown in drawn.options if not shown.option.correct]
    return wrong[:1] or [drawn.options[0].token]


def answer_form(drawn: DrawnView, right: bool = True) -> dict[str, Any]:
    """The question's form as a learner fills it in (right, or wrong by a factor of 8 / a wrong option)."""
    if drawn.type == "numeric":
        return {"value": f"{right_value(drawn) * (1 if right else 8):.6g} {drawn.unit}"}
    if not right:
        return {"tokens": wrong_tokens(drawn)}
    return {"tokens": [s.token for s in drawn.options if s.option.correct]}


def secrets_of(drawn: DrawnView, language: str) -> list[str]:
    """Every text that would give the answer away before the question is locked (the option tokens are in the
    page by necessity; that they carry no mark of correctness is checked separately)."""
    found: list[str] = []
    for shown in drawn.options:
        if shown.option.feedback is not None:
            found.append(shown.option.feedback.get(language))
    explanation = drawn.question.explanation.get(language)
    found.append(explanation.split("{")[0][:60] if "{" in explanation else explanation)
    return [text for text in found if text]


class ClientAddress:
    """Serves the app to a peer at `host`: the ASGI server puts the peer's address in scope["client"], and that
    is all the app reads for its per-address limits, so this is what uvicorn would hand it for that peer."""

    def __init__(self, application: ASGIApp, host: str) -> None:
        self.app = application
        self.host = host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "client": (self.host, 40_000)}
        await self.app(scope, receive, send)


def table_counts(application: FastAPI) -> dict[str, int]:
    """How many rows every table holds: "nothing stored" means none of these moved."""
    with state_of(application).database.session() as session:
        return {
            table.name: int(session.scalar(select(func.count()).select_from(table)) or 0)
            for table in Base.metadata.sorted_tables
        }
