"""Fixed-window rate limits kept in the database, so that every app process and host counts together.

One upsert per hit: INSERT ... ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count, atomic on both
SQLite and PostgreSQL. It runs inside the caller's write transaction, so a request that is refused still
counts (hammering does not reset the window) once the caller commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.quiz.models import RateLimitCounter


@dataclass(frozen=True, slots=True)
class Limit:
    requests: int
    window_s: int


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    retry_after_s: int  # 0 when allowed


_TABLE = RateLimitCounter.__table__
# Built once: constructing the statement per request would cost more than executing it.
_UPSERT = {
    name: dialect.insert(_TABLE)
    .on_conflict_do_update(index_elements=["key", "window_start"], set_={"count": _TABLE.c.count + 1})
    .returning(_TABLE.c.count, sort_by_parameter_order=True)
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}


def hit(session: Session, key: str, limit: Limit, now: datetime) -> Decision:
    return hit_all(session, [(key, limit)], now)[0]


def hit_all(session: Session, keys: list[tuple[str, Limit]], now: datetime) -> list[Decision]:
    """Count one hit on every key, in one statement (several keys guard one action: per learner, per client)."""
    epoch_s = int(now.timestamp())
    windows = [epoch_s - epoch_s % limit.window_s for _key, limit in keys]
    dialect = "postgresql" if session.get_bind().dialect.name == "postgresql" else "sqlite"
    parameters = [
        {"key": key[:128], "window_start": window_start, "count": 1}
        for (key, _limit), window_start in zip(keys, windows, strict=True)
    ]
    counts = session.execute(_UPSERT[dialect], parameters).scalars().all()
    decisions = []
    for (_key, limit), window_start, count in zip(keys, windows, counts, strict=True):
        allowed = count <= limit.requests
        decisions.append(Decision(allowed, 0 if allowed else max(1, window_start + limit.window_s - epoch_s)))
    return decisions


def forget_before(session: Session, now: datetime, keep_s: int = 86_400) -> None:
    """Drop counters of windows that ended long ago (the start path calls it; cheap with the index)."""
    session.execute(delete(RateLimitCounter).where(RateLimitCounter.window_start < int(now.timestamp()) - keep_s))
