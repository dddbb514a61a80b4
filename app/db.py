"""Database plumbing: declarative base, engines and session factories.

SQLite needs care to be a safe embedded default: WAL so readers never block the writer, a busy timeout so a
second writer waits instead of failing, foreign keys on (SQLite's default is off), and `BEGIN IMMEDIATE` for
write transactions. A deferred `BEGIN` takes the write lock only at the first write; two such transactions that
both read first then write deadlock, and SQLite resolves it by failing one of them with "database is locked"
immediately, without honouring the busy timeout.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Engine, MetaData, create_engine, event, text
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLITE_BUSY_TIMEOUT_MS = 10_000
_SQLITE_BEGIN_OPTION = "sqlite_begin_mode"
_SQLITE_NO_WAIT_OPTION = "sqlite_no_wait"


class DatabaseBusyError(Exception):
    """Another connection holds SQLite's write lock, and the transaction was asked not to wait for it."""


def _begin_without_waiting(cursor: Any, mode: str) -> None:
    cursor.execute("PRAGMA busy_timeout=0")
    try:
        cursor.execute(f"BEGIN {mode}")
    except sqlite3.OperationalError as error:
        if error.sqlite_errorcode == sqlite3.SQLITE_BUSY:
            raise DatabaseBusyError from error
        raise
    finally:
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def make_engine(url: str, **kwargs: Any) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, **kwargs)
    engine = create_engine(url, connect_args={"check_same_thread": False}, **kwargs)

    @event.listens_for(engine, "connect")
    def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from pysqlite so that the "begin" hook below decides the BEGIN mode.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        options = connection.get_execution_options()
        mode = options.get(_SQLITE_BEGIN_OPTION, "DEFERRED")
        # On the driver's cursor rather than exec_driver_sql: every write pays for this statement, and
        # SQLAlchemy's execution machinery costs several times what SQLite does here.
        with closing(connection.connection.driver_connection.cursor()) as cursor:
            if options.get(_SQLITE_NO_WAIT_OPTION):
                _begin_without_waiting(cursor, mode)
            else:
                cursor.execute(f"BEGIN {mode}")

    return engine


class Database:
    """One engine, the two kinds of session the services use, and a bare write connection for hot paths."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._write_engine = engine.execution_options(**{_SQLITE_BEGIN_OPTION: "IMMEDIATE"})
        self._write_engine_no_wait = engine.execution_options(
            **{_SQLITE_BEGIN_OPTION: "IMMEDIATE", _SQLITE_NO_WAIT_OPTION: True}
        )
        self._read = sessionmaker(bind=engine, expire_on_commit=False)
        self._write = sessionmaker(bind=self._write_engine, expire_on_commit=False)

    @classmethod
    def from_url(cls, url: str) -> Database:
        return cls(make_engine(url))

    @contextmanager
    def read_session(self) -> Iterator[Session]:
        with self._read() as session:
            yield session

    @contextmanager
    def write_session(self) -> Iterator[Session]:
        """A session whose transaction takes the write lock up front (on SQLite); commit is the caller's."""
        with self._write() as session:
            yield session

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @contextmanager
    def write_connection(self, wait: bool = True) -> Iterator[Connection]:
        """A Core connection whose transaction takes the write lock up front (on SQLite); commit is the caller's.

        For a service that only runs Core statements on its hottest path: a Session costs more than SQLite's
        work there. What is not committed is rolled back on exit. With wait=False, on SQLite, beginning the
        transaction raises DatabaseBusyError at once instead of waiting while another connection writes (for
        work run on the event loop, which must never sleep on a lock). Only beginning can wait on another
        connection: once BEGIN IMMEDIATE holds the lock, no other writer can get in the way.
        """
        engine = self._write_engine if wait else self._write_engine_no_wait
        with engine.connect() as connection:
            yield connection

    def ping(self) -> None:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()


def execute_on_driver(connection: Connection, sql: str, parameters: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Run one statement, written with ? placeholders, on the DB-API cursor, in the connection's transaction.

    For the few hottest statements, where SQLAlchemy's execution machinery costs several times the database
    work (see app/quiz/store.py). The transaction is begun through SQLAlchemy if need be (so BEGIN IMMEDIATE on
    SQLite), and committed through it. Returns the rows, if the statement returns any; no type conversion.
    """
    if not connection.in_transaction():
        connection.begin()
    driver = connection.connection.driver_connection
    assert driver is not None
    with closing(driver.cursor()) as cursor:
        cursor.execute(_for_driver(sql, connection.dialect.paramstyle), tuple(parameters))
        return list(cursor.fetchall()) if cursor.description is not None else []


@lru_cache(maxsize=64)
def _for_driver(sql: str, paramstyle: str) -> str:
    if paramstyle == "qmark":
        return sql
    if paramstyle in ("format", "pyformat"):
        return sql.replace("?", "%s")
    raise NotImplementedError(f"paramstyle {paramstyle}")
