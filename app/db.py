"""Database plumbing: declarative base, engines and session factories.

SQLite needs care to be a safe embedded default: WAL so readers never block the writer, a busy timeout so a
second writer waits instead of failing, foreign keys on (SQLite's default is off), and `BEGIN IMMEDIATE` for
write transactions. A deferred `BEGIN` takes the write lock only at the first write; two such transactions that
both read first then write deadlock, and SQLite resolves it by failing one of them with "database is locked"
immediately, without honouring the busy timeout.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, event, text
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
        mode = connection.get_execution_options().get(_SQLITE_BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


class Database:
    """One engine and the two kinds of session the services use."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        write_bind = engine.execution_options(**{_SQLITE_BEGIN_OPTION: "IMMEDIATE"})
        self._read = sessionmaker(bind=engine, expire_on_commit=False)
        self._write = sessionmaker(bind=write_bind, expire_on_commit=False)

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

    def ping(self) -> None:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()
