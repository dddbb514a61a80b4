"""Learner records: created on the learner's first write, never on a page view."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.conflict import insert_or_update
from app.learners.models import Learner, utcnow

_TOUCH = insert_or_update(
    Learner,
    index_elements=[Learner.id],
    set_=lambda excluded: {"preferred_language": excluded.preferred_language, "last_seen_at": excluded.last_seen_at},
)


def ensure_learner(session: Session, learner_id: str, language: str) -> Learner:
    """Create or touch the learner's row inside the caller's transaction.

    An upsert rather than get-then-insert: two first requests of the same learner (a double click) race, and
    the loser of a plain INSERT would fail with an integrity error.
    """
    now = utcnow()
    row = {"id": learner_id, "preferred_language": language, "created_at": now, "last_seen_at": now}
    session.execute(_TOUCH.on(session), row)
    learner = session.get(Learner, learner_id, populate_existing=True)
    assert learner is not None  # just upserted in this transaction
    return learner
