"""`INSERT … ON CONFLICT`, the one way the services write a row that may already be there.

SQLite and PostgreSQL both speak `ON CONFLICT DO NOTHING / DO UPDATE`, but SQLAlchemy builds it only from each
dialect's own `insert` construct, so a statement is built once for each database the app runs on and picked by
the connection that executes it. Built once at import with bound parameters, each is compiled once per engine:
built per call, constructing the statement cost as much as SQLite's work.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Insert

_INSERTS: Mapping[str, Callable[[Any], Any]] = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}

# What DO UPDATE sets: fixed expressions, or built from `excluded` (the row that was refused).
Assignments = Mapping[str, Any] | Callable[[Any], Mapping[str, Any]]


class PerDialect:
    """One statement in each dialect's spelling; `on(session)` is the one to execute there."""

    def __init__(self, build: Callable[[Callable[[Any], Any]], Insert]) -> None:
        self.statements: Mapping[str, Insert] = {name: build(insert) for name, insert in _INSERTS.items()}

    def on(self, bind: Session | Connection) -> Insert:
        dialect = bind.dialect if isinstance(bind, Connection) else bind.get_bind().dialect
        return self.statements[dialect.name]


def _insert(
    insert: Callable[[Any], Any], table: Any, values: Mapping[str, Any] | None, returning: Sequence[Any]
) -> Any:
    statement = insert(table)
    if values is not None:
        statement = statement.values(dict(values))
    return statement.returning(*returning) if returning else statement


def insert_or_ignore(
    table: Any,
    *,
    index_elements: Sequence[Any] | None = None,
    values: Mapping[str, Any] | None = None,
    returning: Sequence[Any] = (),
) -> PerDialect:
    """INSERT that leaves an existing row alone (on the conflict target `index_elements`, or on any unique
    constraint when it is None); with `returning`, a row that was not inserted returns nothing."""

    def build(insert: Callable[[Any], Any]) -> Insert:
        statement = _insert(insert, table, values, returning).on_conflict_do_nothing(index_elements=index_elements)
        assert isinstance(statement, Insert)
        return statement

    return PerDialect(build)


def insert_or_update(
    table: Any,
    *,
    index_elements: Sequence[Any],
    set_: Assignments,
    values: Mapping[str, Any] | None = None,
    returning: Sequence[Any] = (),
) -> PerDialect:
    """INSERT that, when the row exists, updates it instead: `set_` maps columns to new values, or is a function
    of `excluded` (the refused row: `lambda excluded: {"seen": excluded.seen}`)."""

    def build(insert: Callable[[Any], Any]) -> Insert:
        statement = _insert(insert, table, values, returning)
        assignments = set_(statement.excluded) if callable(set_) else set_
        result = statement.on_conflict_do_update(index_elements=index_elements, set_=dict(assignments))
        assert isinstance(result, Insert)
        return result

    return PerDialect(build)
