"""Attempt and answer rows, read and written through the DB-API cursor under a SQLAlchemy connection.

Why not SQLAlchemy Core here: these statements run on every answer, the hottest write in the course, and
measured on SQLite, Core spent about 0.75 ms per answer around 0.14 ms of database work (compiling cache keys,
execution contexts, events, result processing); the answer benchmark could not reach its target with it. So the
few statements of the answer path are plain SQL, in the dialect-neutral subset SQLite (3.35+) and PostgreSQL
share, and run inside the connection's SQLAlchemy transaction (begun here if need be, with BEGIN IMMEDIATE on
SQLite), so the rest of a service may mix them with Core statements and commit through the connection.

What SQLAlchemy's types would do is done here, for both backends, and tested on both against rows the ORM wrote:
- JSON columns are read as CAST(... AS TEXT) (the drivers disagree on decoding them) and written as JSON text;
- SQLite hands back timestamps as text and booleans as integers; timestamps are written to SQLite in the format
  SQLAlchemy uses for it (UTC, no offset), and as aware datetimes to PostgreSQL.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection

from app.db import execute_on_driver
from app.quiz.models import aware


@dataclass(frozen=True, slots=True)
class StoredAttempt:
    """A quiz_attempts row, with the drawn questions as their JSON text."""

    id: str
    learner_id: str
    quiz_id: str
    state: str
    question_count: int
    started_at: datetime
    deadline_at: datetime | None
    finished_at: datetime | None
    correct_count: int | None
    score_percent: int | None
    passed: bool | None
    questions_json: str


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    """The columns of a quiz_answers row that the views need."""

    question_id: str
    chosen: list[int] | None
    text: str | None
    correct: bool
    diagnosis: str | None
    ratio: float | None


@dataclass(frozen=True, slots=True)
class NewAnswer:
    attempt_id: str
    question_id: str
    chosen: list[int] | None
    text: str | None
    value: float | None
    correct: bool
    diagnosis: str | None
    ratio: float | None
    answered_at: datetime


_ATTEMPT = (
    "SELECT id, learner_id, quiz_id, state, question_count, started_at, deadline_at, finished_at, correct_count, "
    "score_percent, passed, CAST(questions AS TEXT) FROM quiz_attempts WHERE id = ?"
)
_ANSWERS = (
    "SELECT question_id, CAST(chosen AS TEXT), text, correct, diagnosis, ratio FROM quiz_answers "
    "WHERE attempt_id = ? ORDER BY id"
)
_INSERT_ANSWER = (
    "INSERT INTO quiz_answers (attempt_id, question_id, chosen, text, value, correct, diagnosis, ratio, answered_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (attempt_id, question_id) DO NOTHING RETURNING id"
)
_MARK_IN_PROGRESS = "UPDATE quiz_attempts SET state = 'in_progress' WHERE id = ? AND state = 'created'"


def load_attempt(connection: Connection, attempt_id: str, lock: bool) -> StoredAttempt | None:
    """The attempt row; with `lock`, locked until the transaction ends (FOR UPDATE on PostgreSQL; SQLite's
    BEGIN IMMEDIATE already holds the database's write lock)."""
    postgres = connection.dialect.name == "postgresql"
    rows = execute_on_driver(connection, _ATTEMPT + " FOR UPDATE" if lock and postgres else _ATTEMPT, (attempt_id,))
    if not rows:
        return None
    (
        id_,
        learner_id,
        quiz_id,
        state,
        question_count,
        started_at,
        deadline_at,
        finished_at,
        correct_count,
        score_percent,
        passed,
        questions_json,
    ) = rows[0]
    started = _moment(started_at)
    assert started is not None
    return StoredAttempt(
        id=id_,
        learner_id=learner_id,
        quiz_id=quiz_id,
        state=state,
        question_count=question_count,
        started_at=started,
        deadline_at=_moment(deadline_at),
        finished_at=_moment(finished_at),
        correct_count=correct_count,
        score_percent=score_percent,
        passed=None if passed is None else bool(passed),
        questions_json=questions_json,
    )


def answers(connection: Connection, attempt_id: str) -> list[StoredAnswer]:
    rows = execute_on_driver(connection, _ANSWERS, (attempt_id,))
    return [
        StoredAnswer(
            question_id, json.loads(chosen) if chosen is not None else None, text, bool(correct), diagnosis, ratio
        )
        for question_id, chosen, text, correct, diagnosis, ratio in rows
    ]


def insert_answer(connection: Connection, answer: NewAnswer) -> bool:
    """Lock an answer; False when the question already has one (UNIQUE(attempt_id, question_id))."""
    chosen = json.dumps(answer.chosen) if answer.chosen is not None else None
    inserted = execute_on_driver(
        connection,
        _INSERT_ANSWER,
        (
            answer.attempt_id,
            answer.question_id,
            chosen,
            answer.text,
            answer.value,
            answer.correct,
            answer.diagnosis,
            answer.ratio,
            _timestamp(connection, answer.answered_at),
        ),
    )
    return bool(inserted)


def mark_in_progress(connection: Connection, attempt_id: str) -> None:
    execute_on_driver(connection, _MARK_IN_PROGRESS, (attempt_id,))


def _moment(value: datetime | str | None) -> datetime | None:
    if value is None:
        return None
    return aware(datetime.fromisoformat(value) if isinstance(value, str) else value)


def _timestamp(connection: Connection, moment: datetime) -> datetime | str:
    if connection.dialect.name == "postgresql":
        return moment
    # SQLAlchemy's SQLite DATETIME format: 2026-11-30 12:00:00.000000 (UTC, no offset)
    return aware(moment).astimezone(UTC).replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")
