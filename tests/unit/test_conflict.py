"""INSERT … ON CONFLICT built once per dialect (app/conflict.py), on real SQLite and PostgreSQL databases."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from app.conflict import insert_or_ignore, insert_or_update
from app.db import Database
from app.learners.models import Learner

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
T1 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)

IGNORE = insert_or_ignore(Learner, index_elements=[Learner.id], returning=[Learner.id])
UPDATE = insert_or_update(
    Learner,
    index_elements=[Learner.id],
    set_=lambda excluded: {"preferred_language": excluded.preferred_language, "last_seen_at": excluded.last_seen_at},
)
FIXED = insert_or_update(Learner, index_elements=[Learner.id], set_={"preferred_language": "ko"})


def row(learner_id: str, language: str, at: datetime) -> dict[str, object]:
    return {"id": learner_id, "preferred_language": language, "created_at": at, "last_seen_at": at}


def stored(database: Database, learner_id: str) -> tuple[str, datetime]:
    def read(session: Session) -> tuple[str, datetime]:
        language, seen = session.execute(
            select(Learner.preferred_language, Learner.last_seen_at).where(Learner.id == learner_id)
        ).one()
        return language, seen if seen.tzinfo else seen.replace(tzinfo=UTC)

    return database.transaction(read, write=False)


def test_each_dialect_gets_its_own_spelling() -> None:
    for name, url in (("sqlite", "sqlite://"), ("postgresql", "postgresql+psycopg://")):
        dialect = create_engine(url).dialect  # an engine connects only when used
        compiled = str(IGNORE.statements[name].compile(dialect=dialect))
        assert "ON CONFLICT (id) DO NOTHING" in compiled
        assert "RETURNING" in compiled
        assert "ON CONFLICT (id) DO UPDATE SET preferred_language = excluded.preferred_language" in str(
            UPDATE.statements[name].compile(dialect=dialect)
        )


def test_insert_or_ignore_inserts_once_and_then_leaves_the_row_alone(database: Database) -> None:
    def insert(session: Session, language: str, at: datetime) -> list[str]:
        return list(session.execute(IGNORE.on(session), row("a" * 32, language, at)).scalars())

    assert database.transaction(lambda session: insert(session, "en", T0), write=True) == ["a" * 32]
    assert database.transaction(lambda session: insert(session, "ko", T1), write=True) == []
    assert stored(database, "a" * 32) == ("en", T0)


def test_insert_or_update_updates_from_the_refused_row(database: Database) -> None:
    def upsert(session: Session, language: str, at: datetime) -> None:
        session.execute(UPDATE.on(session.connection()), row("b" * 32, language, at))

    database.transaction(lambda session: upsert(session, "en", T0), write=True)
    assert stored(database, "b" * 32) == ("en", T0)
    database.transaction(lambda session: upsert(session, "ko", T1), write=True)
    assert stored(database, "b" * 32) == ("ko", T1)


def test_insert_or_update_with_fixed_values(database: Database) -> None:
    def upsert(session: Session) -> None:
        session.execute(FIXED.on(session), row("c" * 32, "en", T0))

    database.transaction(upsert, write=True)
    assert stored(database, "c" * 32) == ("en", T0)  # inserted as given
    database.transaction(upsert, write=True)
    assert stored(database, "c" * 32) == ("ko", T0)  # the conflict sets only what `set_` names
