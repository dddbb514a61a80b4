"""Database plumbing: declarative base, engines, and the one way services run a transaction.

SQLite needs care to be a safe embedded default: WAL so readers never block the writer, a busy timeout so a
second writer waits instead of failing, foreign keys on (SQLite's default is off), and `BEGIN IMMEDIATE` for
write transactions. A deferred `BEGIN` takes the write lock only at the first write; two such transactions that
both read first then write deadlock, and SQLite resolves it by failing one of them with "database is locked"
immediately, without honouring the busy timeout. pysqlite's own transaction handling cannot issue BEGIN
IMMEDIATE, so it is switched off and the BEGIN is sent from SQLAlchemy's "begin" event (the recipe of
SQLAlchemy's pysqlite documentation, "Serializable isolation / Savepoints / Transactional DDL").

Where the work runs is decided here, not by the services' callers: SQLite's statements are a fraction of a
millisecond of CPU with no network wait, less than handing them to a thread costs, so they run on the event
loop; but the loop must never sleep on a lock, so such a transaction refuses to wait (busy_timeout 0) and, if
another connection holds the lock, is rolled back and run again in a thread, where it may wait. PostgreSQL's
statements wait on the network: always in a thread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from anyio import to_thread
from sqlalchemy import Connection, Engine, MetaData, create_engine, event, text
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLITE_BUSY_TIMEOUT_MS = 10_000
_BEGIN_MODE = "sqlite_begin_mode"

T = TypeVar("T")


class DatabaseBusyError(Exception):
    """Another connection holds SQLite's lock, and the transaction was asked not to wait for it."""


class DatabaseUnavailableError(Exception):
    """The database does not answer (down, unreachable, or its file is gone); the request may be retried."""


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def make_engine(url: str, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS, **kwargs: Any) -> Engine:
    """An engine; on SQLite with the pragmas above, whose connections wait up to `busy_timeout_ms` for a lock."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, **kwargs)
    engine = create_engine(url, connect_args={"check_same_thread": False}, **kwargs)

    @event.listens_for(engine, "connect")
    def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the "begin" hook below sends BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(_BEGIN_MODE, "DEFERRED")
        if mode is not None:  # None: each statement on its own (Database.read)
            connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


def _is_sqlite_busy(error: DBAPIError) -> bool:
    original = error.orig
    return isinstance(original, sqlite3.OperationalError) and original.sqlite_errorcode in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


class Database:
    """One engine and the transactions the services run on it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"
        self.is_postgresql = engine.dialect.name == "postgresql"
        # On SQLite a second pool whose connections never wait for a lock (busy_timeout 0 from the start: setting
        # and restoring it around each BEGIN cost two statements per transaction on the answer path).
        self._no_wait_engine = (
            make_engine(engine.url.render_as_string(hide_password=False), busy_timeout_ms=0)
            if self.is_sqlite
            else engine
        )
        immediate = {_BEGIN_MODE: "IMMEDIATE"}
        self._sessions = {
            (False, True): sessionmaker(bind=engine, expire_on_commit=False),
            (True, True): sessionmaker(bind=engine.execution_options(**immediate), expire_on_commit=False),
            (False, False): sessionmaker(bind=self._no_wait_engine, expire_on_commit=False),
            (True, False): sessionmaker(
                bind=self._no_wait_engine.execution_options(**immediate), expire_on_commit=False
            ),
        }

        # SQLite's reads send no BEGIN (SQLAlchemy's AUTOCOMMIT level would do the same, but resetting it when a
        # connection goes back to the pool costs a PRAGMA and undoes the driver setting the hook above relies on).
        self._reads = {
            True: engine.execution_options(**{_BEGIN_MODE: None}),
            False: self._no_wait_engine.execution_options(**{_BEGIN_MODE: None}),
        }

    @classmethod
    def from_url(cls, url: str) -> Database:
        return cls(make_engine(url))

    @contextmanager
    def _failures(self, wait: bool) -> Iterator[None]:
        """SQLite's lock held elsewhere -> DatabaseBusyError for work that may not wait; a database that does not
        answer -> DatabaseUnavailableError."""
        try:
            yield
        except (OperationalError, InterfaceError) as error:
            if self.is_sqlite and _is_sqlite_busy(error):
                if not wait:
                    raise DatabaseBusyError from error
                raise
            raise DatabaseUnavailableError from error

    @contextmanager
    def session(self, write: bool = False, wait: bool = True) -> Iterator[Session]:
        """A session whose transaction (on SQLite) takes the write lock up front when `write`; with `wait=False`,
        a statement that would wait for another connection's lock raises DatabaseBusyError instead.
        What the work does not commit is rolled back. Connection failures raise DatabaseUnavailableError."""
        with self._failures(wait), self._sessions[(write, wait)]() as session:
            yield session

    def transaction(self, work: Callable[[Session], T], write: bool, wait: bool = True) -> T:
        """Run `work` in one transaction and commit what it did (a work that raises is rolled back, unless it
        committed before raising: a service does that for what must persist, such as an expiry)."""
        with self.session(write, wait) as session:
            result = work(session)
            session.commit()
            return result

    def _read(self, work: Callable[[Connection], T], wait: bool) -> T:
        with self._failures(wait), self._reads[wait].connect() as connection:
            return work(connection)

    async def _placed(self, attempt: Callable[[bool], T]) -> T:
        """`attempt(wait)` on the event loop (SQLite, never waiting) or in a thread (PostgreSQL, or SQLite busy)."""
        if self.is_sqlite:
            try:
                return attempt(False)
            except DatabaseBusyError:
                pass
        return await to_thread.run_sync(attempt, True)

    async def run(self, work: Callable[[Session], T], write: bool = False) -> T:
        """`transaction` on the event loop (SQLite, never waiting) or in a thread (PostgreSQL, or SQLite busy)."""
        return await self._placed(lambda wait: self.transaction(work, write, wait))

    async def read(self, work: Callable[[Connection], T]) -> T:
        """`run` for a read on a bare connection, for the public pages read on every request: no Session (whose
        setup costs as much as the statement), and on SQLite no transaction (BEGIN was one of its two statements),
        so each statement sees the database as of its own start. For reads whose statements need no common
        snapshot: what must be consistent belongs in one statement."""
        return await self._placed(lambda wait: self._read(work, wait))

    def ping(self) -> None:
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except (OperationalError, InterfaceError) as error:
            raise DatabaseUnavailableError from error

    def answers(self) -> bool:
        """Whether the database answers `ping` (the health check asks this, so routes need not import app.db)."""
        try:
            self.ping()
        except DatabaseUnavailableError:
            return False
        return True

    def dispose(self) -> None:
        self.engine.dispose()
        self._no_wait_engine.dispose()
