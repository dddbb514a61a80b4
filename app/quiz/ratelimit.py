"""Fixed-window rate limits kept in the database, so that every app process and host counts together.

One upsert for all of an action's keys: INSERT ... ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count,
atomic on both SQLite and PostgreSQL. It runs inside the caller's write transaction, so a request that is refused
still counts (hammering does not reset the window) once the caller commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from sqlalchemy import Connection, delete
from sqlalchemy.orm import Session

from app.db import execute_on_driver
from app.quiz.models import RateLimitCounter


@dataclass(frozen=True, slots=True)
class Limit:
    requests: int
    window_s: int


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    retry_after_s: int  # 0 when allowed


@lru_cache(maxsize=16)
def _upsert(key_count: int) -> str:
    """The upsert for `key_count` keys: one multi-row VALUES statement, run on the driver's cursor (it runs on
    every answer; see app/quiz/store.py for why that path skips SQLAlchemy's execution machinery)."""
    table = RateLimitCounter.__tablename__
    rows = ", ".join("(?, ?, 1)" for _ in range(key_count))
    return (
        f"INSERT INTO {table} (key, window_start, count) VALUES {rows} "  # noqa: S608  (no input in here)
        f"ON CONFLICT (key, window_start) DO UPDATE SET count = {table}.count + 1 "
        "RETURNING key, window_start, count"
    )


def hit(executor: Session | Connection, key: str, limit: Limit, now: datetime) -> Decision:
    return hit_all(executor, [(key, limit)], now)[0]


def hit_all(executor: Session | Connection, keys: list[tuple[str, Limit]], now: datetime) -> list[Decision]:
    """Count one hit on every key, in one statement (several keys guard one action: per learner, per client)."""
    epoch_s = int(now.timestamp())
    slots = [(key[:128], epoch_s - epoch_s % limit.window_s) for key, limit in keys]
    if len(set(slots)) != len(slots):
        raise ValueError("each key may be hit once per statement")
    connection = executor.connection() if isinstance(executor, Session) else executor
    parameters = [value for slot in slots for value in slot]
    counts = {
        (key, window_start): count
        for key, window_start, count in execute_on_driver(connection, _upsert(len(slots)), parameters)
    }
    decisions = []
    for (_key, limit), slot in zip(keys, slots, strict=True):
        allowed = counts[slot] <= limit.requests
        window_start = slot[1]
        decisions.append(Decision(allowed, 0 if allowed else max(1, window_start + limit.window_s - epoch_s)))
    return decisions


def forget_before(session: Session, now: datetime, keep_s: int = 86_400) -> None:
    """Drop counters of windows that ended long ago (the start path calls it; cheap with the index)."""
    session.execute(delete(RateLimitCounter).where(RateLimitCounter.window_start < int(now.timestamp()) - keep_s))
