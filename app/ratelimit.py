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
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Delete,
    Index,
    Integer,
    Select,
    String,
    Update,
    bindparam,
    delete,
    func,
    select,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.conflict import insert_or_update
from app.db import Base

SLOTS = 10
MICROSECONDS = 1_000_000
KEY_LENGTH = 128
FORGET_EVERY = 32  # slots older than a day are deleted on one request in this many, on average
FORGET_AFTER_US = 86_400 * MICROSECONDS


IPV6_NETWORK_PREFIX = 64


@lru_cache(maxsize=4096)
def client_network(host: str) -> str:
    """The per-address key of a client: an IPv4 address as it is (/32), an IPv6 address by its /64, since one
    subscriber (or one attacker) is routinely handed a whole /64 and could otherwise take a new address per
    request. An IPv4-mapped IPv6 address counts as its IPv4 address; a host that is no address stays as given."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_NETWORK_PREFIX), strict=False))
    return str(address)


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


# One request more in each key's current slot: one statement, executed for every key at once (executemany; a
# multi-row VALUES would be a statement SQLAlchemy cannot cache).
_COUNT_ONE = insert_or_update(
    RateLimitSlot,
    index_elements=[RateLimitSlot.key, RateLimitSlot.slot_start_us],
    set_={"count": RateLimitSlot.count + 1},
    values={"key": bindparam("key"), "slot_start_us": bindparam("slot"), "count": 1},
)


# One request fewer in the slot it was counted in, never below zero.
_UNCOUNT_ONE: Update = (
    update(RateLimitSlot)
    .where(
        RateLimitSlot.key == bindparam("slot_key"),
        RateLimitSlot.slot_start_us == bindparam("slot_start"),
        RateLimitSlot.count > 0,
    )
    .values(count=RateLimitSlot.count - 1)
)


@lru_cache(maxsize=8)
def _advisory_locks(key_count: int) -> Select[Any]:
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
    keys: dict[str, Any] = {f"key{index}": key for index, key in enumerate(by_key)}
    if dialect == "postgresql":
        connection.execute(_advisory_locks(len(by_key)), keys)
    if secrets.randbelow(FORGET_EVERY) == 0:
        connection.execute(_FORGET, {"before": now_us - FORGET_AFTER_US})
    refusals = _refusals(session, by_key, now_us)
    if refusals:
        return max(refusals, key=lambda refusal: refusal.retry_after_s)
    current = [{"key": key, "slot": now_us - now_us % limit.slot_us} for key, limit in by_key.items()]
    connection.execute(_COUNT_ONE.on(connection), current)
    return None


def uncount(session: Session, key: str, limit: Limit, counted_at: datetime) -> None:
    """Give back the request `check_and_count` counted against `key` at `counted_at`, when what it allowed did
    not happen (a mail that could not be sent). A decrement in one statement needs no lock: it can only let
    fewer requests through than were counted."""
    counted_us = round(counted_at.timestamp() * MICROSECONDS)
    session.connection().execute(
        _UNCOUNT_ONE, {"slot_key": key[:KEY_LENGTH], "slot_start": counted_us - counted_us % limit.slot_us}
    )


def refused(session: Session, key: str, limit: Limit, now: datetime) -> Refusal | None:
    """Whether `key` is past `limit` now, by the same window `check_and_count` applies, read without counting
    anything (no lock, no write): for a read path that must not queue for a write transaction."""
    refusals = _refusals(session, {key[:KEY_LENGTH]: limit}, round(now.timestamp() * MICROSECONDS))
    return refusals[0] if refusals else None


def _refusals(session: Session, by_key: dict[str, Limit], now_us: int) -> list[Refusal]:
    """The keys whose window (the slots overlapping the last `window_s`, the current one included) is full."""
    # The earliest slot any key may need: its window reaches back SLOTS slots before the current one.
    oldest = min(now_us - now_us % limit.slot_us - SLOTS * limit.slot_us for limit in by_key.values())
    parameters: dict[str, Any] = {f"key{index}": key for index, key in enumerate(by_key)} | {"oldest": oldest}
    counts: dict[str, list[tuple[int, int]]] = {key: [] for key in by_key}
    for key, slot_start, count in session.connection().execute(_slots(len(by_key)), parameters):
        limit = by_key[key]
        if slot_start + (SLOTS + 1) * limit.slot_us > now_us:  # overlaps [now - window, now]
            counts[key].append((slot_start, count))
    return [
        Refusal(key, _retry_after_s(slots, by_key[key], now_us))
        for key, slots in counts.items()
        if sum(count for _, count in slots) >= by_key[key].requests
    ]


def _retry_after_s(slots: list[tuple[int, int]], limit: Limit, now_us: int) -> int:
    """Seconds until enough of the oldest slots have left the window for one more request to fit."""
    total = sum(count for _, count in slots)
    for slot_start, count in sorted(slots):
        total -= count
        if total < limit.requests:
            leaves_us = slot_start + (SLOTS + 1) * limit.slot_us - now_us
            return max(1, -(-leaves_us // MICROSECONDS))
    return 1
