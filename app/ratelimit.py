"""Sliding-window rate limits kept in the database, so that every app process and host counts together.

A key's window of `window_s` seconds is cut into SLOTS slots; each slot is one row (key, slot start, count) of
the requests allowed in it. A request is allowed when the slots that overlap its window, the current one
included, hold fewer than `limit.requests`. Those slots cover at least the last `window_s` seconds (and at most
one slot more), so no window of that length, wherever it starts, ever holds more than the limit: a fixed window
let twice the limit through around its boundary; this errs the other way, by at most a tenth of the window.
The cost is independent of the traffic: at most SLOTS + 1 small rows per key are read.

Refused requests are not counted: a client that keeps hammering stays refused, since what it was allowed stays
in the window, and its rows stay bounded. Several keys guard one action (per learner, per client address): the
request is allowed only if every key allows it, and then counts against each. The check and the count are one
transaction; concurrent requests on a key are serialised by SQLite's BEGIN IMMEDIATE, and on PostgreSQL by a
transaction-scoped advisory lock per key (taken in key order, so two requests never wait on each other
crosswise).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, Delete, Index, Integer, Select, String, bindparam, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.db import Base

SLOTS = 10
MICROSECONDS = 1_000_000
KEY_LENGTH = 128
FORGET_EVERY = 32  # slots older than a day are deleted on one request in this many, on average
FORGET_AFTER_US = 86_400 * MICROSECONDS


class RateLimitSlot(Base):
    """The requests allowed for a key within one slot (a tenth of the key's window)."""

    __tablename__ = "rate_limit_slots"
    __table_args__ = (Index("ix_rate_limit_slots_slot_start_us", "slot_start_us"),)

    key: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    slot_start_us: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # Unix time in microseconds
    count: Mapped[int] = mapped_column(Integer)


@dataclass(frozen=True, slots=True)
class Limit:
    requests: int
    window_s: int

    @property
    def slot_us(self) -> int:
        return max(1, self.window_s * MICROSECONDS // SLOTS)


@dataclass(frozen=True, slots=True)
class Refusal:
    key: str
    retry_after_s: int


# Built once (per number of keys, per dialect) with bound parameters, so SQLAlchemy compiles each a single time:
# statements built per call cost more than SQLite's own work on every answer.
_FORGET: Delete = delete(RateLimitSlot).where(RateLimitSlot.slot_start_us < bindparam("before"))


@lru_cache(maxsize=8)
def _slots(key_count: int) -> Select[str, int, int]:
    """The slots of each key that overlap its window, in one statement."""
    keys: list[Any] = [bindparam(f"key{index}") for index in range(key_count)]
    return select(RateLimitSlot.key, RateLimitSlot.slot_start_us, RateLimitSlot.count).where(
        RateLimitSlot.key.in_(keys), RateLimitSlot.slot_start_us >= bindparam("oldest")
    )


def _upsert(insert: Callable[[Any], Any]) -> Any:
    statement = insert(RateLimitSlot).values(key=bindparam("key"), slot_start_us=bindparam("slot"), count=1)
    return statement.on_conflict_do_update(
        index_elements=[RateLimitSlot.key, RateLimitSlot.slot_start_us], set_={"count": RateLimitSlot.count + 1}
    )


# One request more in each key's current slot: one statement, executed for every key at once (executemany; a
# multi-row VALUES would be a statement SQLAlchemy cannot cache).
_COUNT_ONE = {"sqlite": _upsert(sqlite.insert), "postgresql": _upsert(postgresql.insert)}


@lru_cache(maxsize=8)
def _lock(key_count: int) -> Select[Any]:
    """PostgreSQL: the transaction's advisory lock on each key, in the keys' order, in one statement."""
    return select(
        *(func.pg_advisory_xact_lock(func.hashtextextended(bindparam(f"key{index}"), 0)) for index in range(key_count))
    )


def check_and_count(session: Session, limits: list[tuple[str, Limit]], now: datetime) -> Refusal | None:
    """Count one request against every key, or against none if any key refuses it (the longest wait is
    returned). Runs in the caller's write transaction."""
    by_key = dict(sorted(((key[:KEY_LENGTH], limit) for key, limit in limits), key=lambda item: item[0]))
    if len(by_key) != len(limits):
        raise ValueError("each key may guard an action once")
    connection = session.connection()
    dialect = connection.dialect.name
    now_us = round(now.timestamp() * MICROSECONDS)
    current = {key: now_us - now_us % limit.slot_us for key, limit in by_key.items()}
    # The earliest slot any key may need: its window reaches back SLOTS slots before the current one.
    oldest = min(current[key] - SLOTS * limit.slot_us for key, limit in by_key.items())
    keys: dict[str, Any] = {f"key{index}": key for index, key in enumerate(by_key)}
    if dialect == "postgresql":
        connection.execute(_lock(len(by_key)), keys)
    if secrets.randbelow(FORGET_EVERY) == 0:
        connection.execute(_FORGET, {"before": now_us - FORGET_AFTER_US})
    parameters = keys | {"oldest": oldest}
    counts: dict[str, list[tuple[int, int]]] = {key: [] for key in by_key}
    for key, slot_start, count in connection.execute(_slots(len(by_key)), parameters):
        limit = by_key[key]
        if slot_start + (SLOTS + 1) * limit.slot_us > now_us:  # overlaps [now - window, now]
            counts[key].append((slot_start, count))
    refusals = [
        Refusal(key, _retry_after_s(slots, by_key[key], now_us))
        for key, slots in counts.items()
        if sum(count for _, count in slots) >= by_key[key].requests
    ]
    if refusals:
        return max(refusals, key=lambda refusal: refusal.retry_after_s)
    connection.execute(_COUNT_ONE[dialect], [{"key": key, "slot": current[key]} for key in by_key])
    return None


def _retry_after_s(slots: list[tuple[int, int]], limit: Limit, now_us: int) -> int:
    """Seconds until enough of the oldest slots have left the window for one more request to fit."""
    total = sum(count for _, count in slots)
    for slot_start, count in sorted(slots):
        total -= count
        if total < limit.requests:
            leaves_us = slot_start + (SLOTS + 1) * limit.slot_us - now_us
            return max(1, -(-leaves_us // MICROSECONDS))
    return 1


def client_network(address: str) -> str:
    """The network a per-address limit counts: an IPv4 address itself (/32), an IPv6 address's /64 (one
    subscriber line or host usually holds a whole /64, so counting addresses would count nothing). Text that is
    not an address (a test client's "testclient", a Unix socket) is its own key."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)
