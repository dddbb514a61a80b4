"""Database-backed rate limits: one statement counts every key of an action, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from app.db import Database
from app.quiz.ratelimit import Limit, hit, hit_all

NOW = datetime(2026, 11, 30, 12, 0, 30, tzinfo=UTC)


def test_every_key_is_counted_in_its_own_window(database: Database) -> None:
    per_learner, per_client = Limit(2, 60), Limit(3, 3600)
    decisions = []
    for _ in range(4):
        with database.write_session() as session:
            decisions.append(hit_all(session, [("learner", per_learner), ("client", per_client)], NOW))
            session.commit()
    assert [[d.allowed for d in pair] for pair in decisions] == [
        [True, True],
        [True, True],
        [False, True],
        [False, False],
    ]
    # Refused in the 60 s window that started at 12:00:00, at 12:00:30: 30 s left; the hour has 59.5 min left.
    assert decisions[3][0].retry_after_s == 30
    assert decisions[3][1].retry_after_s == 3600 - 30


def test_a_new_window_starts_from_zero_and_single_hits_share_the_counter(database: Database) -> None:
    limit = Limit(1, 60)
    with database.write_session() as session:
        assert hit(session, "k", limit, NOW).allowed
        assert not hit_all(session, [("k", limit)], NOW)[0].allowed
        assert hit(session, "k", limit, NOW.replace(minute=1)).allowed
        session.commit()
