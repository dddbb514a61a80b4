"""Shared by the quiz tests: the real banks, an app on a fresh database, and answers built from the bank."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from functools import cache
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from itsdangerous import URLSafeSerializer

from app import migrations
from app.content import load_course
from app.db import Database
from app.main import create_app
from app.quiz import service
from app.quiz.bank import QuizCatalog, load_quizzes
from app.quiz.grading import expected_in_unit
from app.quiz.service import QuizPolicy
from app.quiz.views import AttemptView, DrawnView
from tests.conftest import PROJECT_ROOT, SettingsFactory

CONTENT_DIR = PROJECT_ROOT / "content"


@cache
def real_catalog() -> QuizCatalog:
    return load_quizzes(CONTENT_DIR, load_course(CONTENT_DIR))


def quiz_app(database_url: str, make_settings: SettingsFactory, policy: QuizPolicy | None = None) -> FastAPI:
    if not database_url.startswith("sqlite"):
        database = Database.from_url(database_url)
        try:
            migrations.upgrade(database)
        finally:
            database.dispose()
    app = create_app(make_settings(database_url=database_url))
    if policy is not None:
        app.state.interconnects = dataclasses.replace(app.state.interconnects, quiz_policy=policy)
    return app


def learner_of(app: FastAPI, client: TestClient) -> str:
    cookie = client.cookies.get("learner")
    assert cookie is not None
    learner_id: str = URLSafeSerializer(app.state.interconnects.secret_key, salt="learner-id").loads(cookie)
    return learner_id


def attempt_of(app: FastAPI, client: TestClient, attempt_id: str) -> AttemptView:
    """The attempt as the service sees it, with the correct options (tests only)."""
    state = app.state.interconnects
    with state.database.write_session() as session:
        return service.get_attempt(session, state.quizzes, learner_of(app, client), attempt_id, datetime.now(UTC))


def csrf_token(client: TestClient, path: str = "/en/guides/nvlink/quiz") -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).text)
    assert match is not None
    return match.group(1)


def right_answer(drawn: DrawnView) -> dict[str, Any]:
    """An API answer body that is right for this drawn question."""
    if drawn.type == "numeric":
        return {
            "question_id": drawn.id,
            "value": expected_in_unit(drawn.question, drawn.parameters),
            "unit": drawn.unit,
        }
    return {"question_id": drawn.id, "tokens": [s.token for s in drawn.options if s.option.correct]}


def wrong_answer(drawn: DrawnView) -> dict[str, Any]:
    if drawn.type == "numeric":
        return {
            "question_id": drawn.id,
            "value": 3 * expected_in_unit(drawn.question, drawn.parameters),
            "unit": drawn.unit,
        }
    return {"question_id": drawn.id, "tokens": [next(s.token for s in drawn.options if not s.option.correct)]}


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
