"""Learner records: created on the learner's first write, never on a page view."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.learners.models import Learner, utcnow


def ensure_learner(session: Session, learner_id: str, language: str) -> Learner:
    """Create or touch the learner's row inside the caller's transaction.

    An upsert rather than get-then-insert: two first requests of the same learner (a double click) race, and
    the loser of a plain INSERT would fail with an integrity error.
    """
    now = utcnow()
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(Learner).values(id=learner_id, preferred_language=language, created_at=now, last_seen_at=now)
    statement = statement.on_conflict_do_update(
        index_elements=[Learner.id],
        set_={"preferred_language": language, "last_seen_at": now},
    )
    session.execute(statement)
    learner = session.get(Learner, learner_id, populate_existing=True)
    assert learner is not None  # just upserted in this transaction
    return learner
