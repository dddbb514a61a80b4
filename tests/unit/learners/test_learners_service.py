from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from app.db import Database
from app.learners.models import Learner
from app.learners.service import ensure_learner


def test_first_write_creates_then_updates(database: Database) -> None:
    with database.session(write=True) as session:
        ensure_learner(session, "a" * 32, "en")
        session.commit()
    with database.session(write=True) as session:
        learner = ensure_learner(session, "a" * 32, "ko")
        session.commit()
    assert learner.preferred_language == "ko"
    with database.session() as session:
        stored = session.get(Learner, "a" * 32)
        assert stored is not None
        assert stored.preferred_language == "ko"
        assert stored.last_seen_at >= stored.created_at


def test_racing_first_writes_create_exactly_one_row(database: Database) -> None:
    def write(language: str) -> str:
        with database.session(write=True) as session:
            learner = ensure_learner(session, "b" * 32, language)
            session.commit()
            return learner.id

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(write, ["en", "ko"] * 10))
    assert set(results) == {"b" * 32}
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(Learner)) == 1
