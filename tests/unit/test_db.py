"""app/db.py: where a transaction runs (SQLite on the event loop, never waiting on it; PostgreSQL in a thread),
SQLite's locking (BEGIN IMMEDIATE for writes), and DatabaseUnavailableError when the database does not answer."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

import app.models  # noqa: F401  (every table)
from app import migrations
from app.db import SQLITE_BUSY_TIMEOUT_MS, Database, DatabaseBusyError, DatabaseUnavailableError
from app.learners.models import Learner
from app.quiz.models import QuizAttempt, aware
from tests.conftest import PostgresDatabases, require_postgres

MOMENT = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC)
LOCK_HELD_S = 0.3


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    path = tmp_path / "db.sqlite3"
    database = Database.from_url(f"sqlite:///{path}")
    migrations.upgrade(database)
    database.dispose()
    return path


@pytest.fixture
def sqlite_database(sqlite_path: Path) -> Iterator[Database]:
    database = Database.from_url(f"sqlite:///{sqlite_path}")
    yield database
    database.dispose()


@pytest.fixture
def write_lock_holder(sqlite_path: Path) -> Iterator[sqlite3.Connection]:
    """Another connection to the same file, as another process would have, holding nothing yet."""
    holder = sqlite3.connect(sqlite_path, isolation_level=None, timeout=0)
    yield holder
    holder.close()


def add_learner(session: Session, learner_id: str) -> str:
    session.add(Learner(id=learner_id, preferred_language="en", created_at=MOMENT, last_seen_at=MOMENT))
    session.flush()
    return learner_id


def learners(database: Database) -> list[str]:
    with database.session() as session:
        return list(session.scalars(select(Learner.id).order_by(Learner.id)))


# --- where the work runs -------------------------------------------------------------------------------------


def test_sqlite_work_runs_on_the_event_loop(sqlite_database: Database) -> None:
    database = sqlite_database
    threads: list[int] = []

    async def main() -> str:
        def work(session: Session) -> str:
            threads.append(threading.get_ident())
            return add_learner(session, "a" * 32)

        return await database.run(work, write=True)

    assert asyncio.run(main()) == "a" * 32
    assert threads == [threading.get_ident()]  # asyncio.run's loop runs in this thread
    assert learners(database) == ["a" * 32]  # and it was committed


def test_postgresql_work_runs_in_a_thread(postgres_database_url: str) -> None:
    database = Database.from_url(postgres_database_url)
    threads: list[int] = []

    def work(session: Session) -> str:
        threads.append(threading.get_ident())
        return add_learner(session, "b" * 32)

    try:
        assert asyncio.run(database.run(work, write=True)) == "b" * 32
        assert len(threads) == 1
        assert threads != [threading.get_ident()]
        assert learners(database) == ["b" * 32]
    finally:
        database.dispose()


def test_a_locked_sqlite_write_waits_in_a_thread_while_the_loop_keeps_running(
    sqlite_database: Database, write_lock_holder: sqlite3.Connection
) -> None:
    """While another connection holds the write lock, the work is retried in a thread that waits for it; the
    loop goes on running meanwhile: it is the loop itself that sees the thread waiting and only then releases the
    lock, so a blocked loop would never get there and the work would fail after SQLite's busy timeout."""
    calls: list[tuple[int, float]] = []
    released_at: list[float] = []
    loop_thread = threading.get_ident()

    def work(session: Session) -> str:
        calls.append((threading.get_ident(), time.monotonic()))
        learner_id = add_learner(session, "c" * 32)
        calls.append((threading.get_ident(), time.monotonic()))
        return learner_id

    async def main() -> str:
        write_lock_holder.execute("BEGIN IMMEDIATE")
        writing = asyncio.create_task(sqlite_database.run(work, write=True))
        # The loop runs while the work waits: it sees the retry start in another thread, still unfinished.
        while not (len(calls) == 2 and calls[1][0] != loop_thread):
            assert not writing.done(), "the work finished (or failed) without waiting for the lock"
            await asyncio.sleep(0)
        assert not writing.done()
        released_at.append(time.monotonic())
        write_lock_holder.execute("COMMIT")
        return await asyncio.wait_for(writing, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)

    assert asyncio.run(main()) == "c" * 32
    assert calls[0][0] == loop_thread  # tried on the loop first ...
    assert len(calls) == 3  # ... where it was refused at its first statement, then run once more
    finished_thread, finished_at = calls[-1]
    assert finished_thread != loop_thread  # ... in a thread
    assert finished_at >= released_at[0]  # which waited for the lock
    assert learners(sqlite_database) == ["c" * 32]


# --- SQLite's locks ------------------------------------------------------------------------------------------


def test_a_write_transaction_takes_the_write_lock_at_begin(
    sqlite_database: Database, write_lock_holder: sqlite3.Connection
) -> None:
    with sqlite_database.session(write=True) as session:
        session.execute(select(Learner.id))  # only a read, yet the lock is taken: BEGIN IMMEDIATE
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            write_lock_holder.execute("BEGIN IMMEDIATE")
    write_lock_holder.execute("BEGIN IMMEDIATE")  # released with the session
    write_lock_holder.execute("ROLLBACK")
    with sqlite_database.session() as session:
        session.execute(select(Learner.id))  # a read transaction takes no write lock (WAL)
        write_lock_holder.execute("BEGIN IMMEDIATE")
        write_lock_holder.execute("ROLLBACK")


def test_concurrent_read_then_write_transactions_neither_fail_nor_lose_an_update(sqlite_database: Database) -> None:
    """Two deferred transactions that both read and then write deadlock, and SQLite fails one of them at once,
    busy timeout or not; with BEGIN IMMEDIATE the second waits for the first and reads what it wrote."""
    with sqlite_database.session(write=True) as session:
        add_learner(session, "d" * 32)
        session.add(
            QuizAttempt(
                id="attempt",
                learner_id="d" * 32,
                quiz_id="nvlink",
                state="finished",
                seed=1,
                questions=[],
                question_count=0,
                started_at=MOMENT,
                correct_count=0,
            )
        )
        session.commit()
    both_read = threading.Barrier(2, timeout=LOCK_HELD_S)

    def increment(session: Session) -> None:
        attempt = session.get(QuizAttempt, "attempt")
        assert attempt is not None
        count = attempt.correct_count or 0
        with contextlib.suppress(threading.BrokenBarrierError):  # deferred, both would get here before a write
            both_read.wait()
        attempt.correct_count = count + 1

    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(sqlite_database.transaction, increment, True) for _ in range(2)]:
            future.result()
    with sqlite_database.session() as session:
        assert session.scalar(select(QuizAttempt.correct_count)) == 2


def test_a_transaction_that_may_not_wait_is_refused_at_once_and_the_connection_waits_again_after(
    sqlite_database: Database, write_lock_holder: sqlite3.Connection
) -> None:
    write_lock_holder.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    with pytest.raises(DatabaseBusyError):
        sqlite_database.transaction(lambda session: add_learner(session, "e" * 32), write=True, wait=False)
    assert time.monotonic() - started < SQLITE_BUSY_TIMEOUT_MS / 1000 / 2  # refused, not after the busy timeout
    write_lock_holder.execute("COMMIT")
    # The refusal left the pooled connection waiting normally again, and unlocked writes go through.
    assert sqlite_database.transaction(lambda session: add_learner(session, "e" * 32), write=True, wait=False)
    with sqlite_database.session() as session:
        assert session.scalar(text("PRAGMA busy_timeout")) == SQLITE_BUSY_TIMEOUT_MS
    assert learners(sqlite_database) == ["e" * 32]


# --- transactions ----------------------------------------------------------------------------------------------


def test_work_is_committed_and_work_that_raises_is_rolled_back(database: Database) -> None:
    def failing(session: Session) -> None:
        add_learner(session, "f" * 32)
        raise LookupError("no")

    with pytest.raises(LookupError):
        database.transaction(failing, write=True)
    with pytest.raises(LookupError):
        asyncio.run(database.run(failing, write=True))
    assert learners(database) == []
    database.transaction(lambda session: add_learner(session, "f" * 32), write=True)
    with database.session(write=True) as session:
        add_learner(session, "g" * 32)  # a session's work is kept only if committed
    assert learners(database) == ["f" * 32]


def test_values_read_back_with_their_types(database: Database) -> None:
    questions = [{"id": "q1", "params": {"gpus": 8}, "options": [[2, "tok-a"], [0, "tok-b"]]}]

    def write(session: Session) -> None:
        add_learner(session, "h" * 32)
        session.add(
            QuizAttempt(
                id="typed",
                learner_id="h" * 32,
                quiz_id="nvlink",
                state="finished",
                seed=2**62,
                questions=questions,
                question_count=1,
                started_at=MOMENT,
                passed=True,
            )
        )

    database.transaction(write, write=True)
    with database.session() as session:
        attempt = session.get(QuizAttempt, "typed")
        assert attempt is not None
        assert (attempt.questions, attempt.seed, attempt.passed, attempt.finished_at) == (questions, 2**62, True, None)
        # SQLite hands back naive datetimes for timezone-aware columns (app.quiz.models.aware restores UTC).
        assert aware(attempt.started_at) == MOMENT


# --- a database that does not answer ----------------------------------------------------------------------------


def test_a_sqlite_file_whose_directory_is_gone_is_unavailable(tmp_path: Path) -> None:
    directory = tmp_path / "volume"
    directory.mkdir()
    database = Database.from_url(f"sqlite:///{directory / 'db.sqlite3'}")
    try:
        migrations.upgrade(database)
        database.dispose()
        assert database.answers()
        database.dispose()
        shutil.rmtree(directory)
        assert not database.answers()
        with pytest.raises(DatabaseUnavailableError):
            database.ping()
        with pytest.raises(DatabaseUnavailableError):
            database.transaction(lambda session: session.scalar(select(Learner.id)), write=False)
        with pytest.raises(DatabaseUnavailableError):
            asyncio.run(database.run(lambda session: session.scalar(select(Learner.id))))
    finally:
        database.dispose()


def test_a_dropped_postgresql_database_is_unavailable(postgres_server: str | None) -> None:
    databases = PostgresDatabases(require_postgres(postgres_server))
    database = Database.from_url(databases.create())
    try:
        database.ping()
        database.transaction(lambda session: session.scalar(text("SELECT 1")), write=False)  # a pooled connection
        assert database.answers()
        databases.drop(str(database.engine.url.database))
        assert not database.answers()
        with pytest.raises(DatabaseUnavailableError):
            database.ping()
        with pytest.raises(DatabaseUnavailableError):
            asyncio.run(database.run(lambda session: session.scalar(text("SELECT 1")), write=True))
    finally:
        database.dispose()
        databases.drop_all()
