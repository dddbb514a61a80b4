"""Shared by the quiz unit tests: the real banks, a service on a test database, request contexts, and answers
computed from the bank (as only tests may). A helper module, not a test module."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from datetime import UTC, datetime
from functools import cache
from typing import Any, TypeVar

from app.content import load_course
from app.context import RequestContext
from app.db import Database
from app.quiz.bank import Quiz, QuizCatalog, load_quizzes
from app.quiz.grading import expected_in_unit
from app.quiz.readmodels import DrawnView
from app.quiz.service import ChoiceSubmission, NumericSubmission, QuizPolicy, QuizService, Submission
from tests.conftest import GENEROUS_POLICY, PROJECT_ROOT

CONTENT_DIR = PROJECT_ROOT / "content"
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CLIENT = "192.0.2.1"

T = TypeVar("T")


@cache
def real_catalog() -> QuizCatalog:
    return load_quizzes(CONTENT_DIR, load_course(CONTENT_DIR))


def real_quiz(quiz_id: str) -> Quiz:
    quiz = real_catalog().get(quiz_id)
    assert quiz is not None, quiz_id
    return quiz


def quiz_service(database: Database, policy: QuizPolicy = GENEROUS_POLICY) -> QuizService:
    """The service with every per-request limit lifted, unless a test is about one."""
    return QuizService(database, real_catalog(), policy)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """One service call on its own event loop, as a request would make it.

    Not asyncio.run: on Python 3.11 its SIGINT bookkeeping formats the finished task, result included, and the
    repr of an attempt (its whole quiz bank) made that a third of the state machine's run time."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.run_until_complete(loop.shutdown_default_executor())
        loop.close()


def context(
    learner_id: str, now: datetime = T0, client: str = CLIENT, language: str = "en", returning: bool = True
) -> RequestContext:
    return RequestContext(learner_id, returning, language, client, now)


def right_value(drawn: DrawnView) -> float:
    return expected_in_unit(drawn.question, drawn.parameters)


def right_submission(drawn: DrawnView) -> Submission:
    if drawn.type == "numeric":
        return NumericSubmission(right_value(drawn), drawn.unit)
    return ChoiceSubmission(tuple(shown.token for shown in drawn.options if shown.option.correct))


def wrong_submission(drawn: DrawnView) -> Submission:
    """Wrong by a factor of 3 (no unit slip), or one wrong option (only one of the options, where all are right)."""
    if drawn.type == "numeric":
        return NumericSubmission(3 * right_value(drawn), drawn.unit)
    wrong = [shown.token for shown in drawn.options if not shown.option.correct]
    return ChoiceSubmission(tuple(wrong[:1] or [drawn.options[0].token]))
