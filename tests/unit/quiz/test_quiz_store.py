"""The answer path's plain SQL reads and writes the same values SQLAlchemy's types do, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

import app.models  # noqa: F401  (every table)
from app import migrations
from app.db import Database, DatabaseBusyError, execute_on_driver
from app.learners.models import Learner
from app.quiz import store
from app.quiz.models import QuizAnswer, QuizAttempt

MOMENT = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC)
QUESTIONS = [{"id": "q1", "params": {"gpus": 8}, "options": [[2, "tok-a"], [0, "tok-b"]]}]


def _attempt(database: Database, **overrides: object) -> None:
    values: dict[str, object] = {
        "id": "attempt-1",
        "learner_id": "l" * 32,
        "quiz_id": "nvlink",
        "state": "created",
        "seed": 7,
        "questions": QUESTIONS,
        "question_count": 1,
        "started_at": MOMENT,
        "deadline_at": None,
    } | overrides
    with database.write_session() as session:
        session.add(Learner(id="l" * 32, preferred_language="en"))
        session.add(QuizAttempt(**values))
        session.commit()


def test_an_attempt_the_orm_wrote_reads_back_with_its_types(database: Database) -> None:
    _attempt(
        database,
        state="finished",
        deadline_at=MOMENT + timedelta(minutes=30),
        finished_at=MOMENT + timedelta(minutes=5),
        correct_count=1,
        score_percent=100,
        passed=True,
    )
    with database.write_connection() as connection:
        row = store.load_attempt(connection, "attempt-1", lock=True)
        assert store.load_attempt(connection, "no-such-attempt", lock=False) is None
    assert row is not None
    assert (row.id, row.learner_id, row.quiz_id, row.state, row.question_count) == (
        "attempt-1",
        "l" * 32,
        "nvlink",
        "finished",
        1,
    )
    assert row.started_at == MOMENT
    assert row.started_at.tzinfo is not None
    assert row.deadline_at == MOMENT + timedelta(minutes=30)
    assert row.finished_at == MOMENT + timedelta(minutes=5)
    assert (row.correct_count, row.score_percent, row.passed) == (1, 100, True)
    assert isinstance(row.passed, bool)
    assert json.loads(row.questions_json) == QUESTIONS


def test_unset_columns_read_back_as_none(database: Database) -> None:
    _attempt(database)
    with database.write_connection() as connection:
        row = store.load_attempt(connection, "attempt-1", lock=False)
    assert row is not None
    assert (row.deadline_at, row.finished_at, row.correct_count, row.score_percent, row.passed) == (
        None,
        None,
        None,
        None,
        None,
    )


def test_an_answer_it_writes_reads_back_through_the_orm_and_itself(database: Database) -> None:
    _attempt(database)
    choice = store.NewAnswer("attempt-1", "q1", [0, 2], None, None, True, None, None, MOMENT)
    numeric = store.NewAnswer("attempt-1", "q2", None, "3.9 ms", 0.0039, False, "bits_bytes", 8.0, MOMENT)
    with database.write_connection() as connection:
        assert store.insert_answer(connection, choice)
        assert store.insert_answer(connection, numeric)
        assert not store.insert_answer(connection, choice)  # UNIQUE(attempt, question): the first one stays
        store.mark_in_progress(connection, "attempt-1")
        connection.commit()
    with database.read_session() as session:
        rows = {row.question_id: row for row in session.scalars(select(QuizAnswer))}
        attempt = session.get(QuizAttempt, "attempt-1")
    assert attempt is not None
    assert attempt.state == "in_progress"
    assert rows["q1"].chosen == [0, 2]
    assert rows["q1"].correct is True
    assert rows["q2"].text == "3.9 ms"
    assert rows["q2"].value == pytest.approx(0.0039)
    assert (rows["q2"].correct, rows["q2"].diagnosis, rows["q2"].ratio) == (False, "bits_bytes", 8.0)
    for row in rows.values():
        answered_at = row.answered_at if row.answered_at.tzinfo else row.answered_at.replace(tzinfo=UTC)
        assert answered_at == MOMENT
    with database.write_connection() as connection:
        assert store.answers(connection, "attempt-1") == [
            store.StoredAnswer("q1", [0, 2], None, True, None, None),
            store.StoredAnswer("q2", None, "3.9 ms", False, "bits_bytes", 8.0),
        ]


def test_nothing_is_kept_unless_the_caller_commits(database: Database) -> None:
    _attempt(database)
    with database.write_connection() as connection:
        store.insert_answer(connection, store.NewAnswer("attempt-1", "q1", [0], None, None, True, None, None, MOMENT))
    with database.write_connection() as connection:
        assert store.answers(connection, "attempt-1") == []


def test_driver_statements_use_the_drivers_placeholders(database: Database) -> None:
    with database.write_connection() as connection:
        assert execute_on_driver(connection, "SELECT ? + ?, ?", (1, 2, "x")) == [(3, "x")]
        assert execute_on_driver(connection, "CREATE TEMPORARY TABLE scratch (n INTEGER)", ()) == []


def test_a_write_that_may_not_wait_is_refused_at_once_while_another_writer_holds_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "busy.sqlite3"
    database = Database.from_url(f"sqlite:///{path}")
    migrations.upgrade(database)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(DatabaseBusyError), database.write_connection(wait=False) as connection:
            store.mark_in_progress(connection, "attempt-1")
        holder.execute("COMMIT")
        # The refusal left the pooled connection waiting normally again, and unlocked writes go through.
        with database.write_connection(wait=False) as connection:
            store.mark_in_progress(connection, "attempt-1")
            connection.commit()
        with database.write_connection() as connection:
            assert execute_on_driver(connection, "PRAGMA busy_timeout", ()) == [(10_000,)]
    finally:
        holder.close()
        database.dispose()
