"""Sliding-window rate limits in the database (app/ratelimit.py), on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.db import Database
from app.ratelimit import KEY_LENGTH, Limit, Refusal, check_and_count, client_network

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)

EXAMPLES = itertools.count()  # a key per Hypothesis example: they share the test's database

Limiter = Callable[[str, Limit, datetime], bool]  # one request of a key at a moment: allowed?


def hit(database: Database, limits: list[tuple[str, Limit]], at: datetime) -> Refusal | None:
    return database.transaction(lambda session: check_and_count(session, limits, at), write=True)


def allowed(database: Database, key: str, limit: Limit, at: datetime) -> bool:
    return hit(database, [(key, limit)], at) is None


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def busiest_window(allowed: Sequence[datetime], window_s: float) -> int:
    """The most allowed requests that any window of `window_s` seconds holds, wherever it starts (the busiest
    window starts at an allowed request, so those are the only starts to try)."""
    moments = sorted(allowed)
    return max(
        (sum(1 for other in moments if start <= other < start + timedelta(seconds=window_s)) for start in moments),
        default=0,
    )


def boundary_attack(limiter: Limiter, limit: Limit) -> list[datetime]:
    """A burst of `limit.requests` just before a fixed window's boundary and another just after it; the
    moments that were let through."""
    boundary = T0 + timedelta(seconds=limit.window_s)  # T0 is on a boundary of every whole-minute window
    bursts = [boundary - timedelta(seconds=1, milliseconds=10 * n) for n in range(limit.requests)]
    bursts += [boundary + timedelta(milliseconds=1 + 10 * n) for n in range(limit.requests)]
    return [moment for moment in sorted(bursts) if limiter("attacker", limit, moment)]


def fixed_window_limiter() -> Limiter:
    """What app.ratelimit replaced: a counter per key and per window of the clock."""
    counters: dict[tuple[str, int], int] = {}

    def allow(key: str, limit: Limit, moment: datetime) -> bool:
        window = (key, int(moment.timestamp()) // limit.window_s)
        if counters.get(window, 0) >= limit.requests:
            return False
        counters[window] = counters.get(window, 0) + 1
        return True

    return allow


def database_limiter(database: Database) -> Limiter:
    return lambda key, limit, moment: allowed(database, key, limit, moment)


def assert_retry_after_is_the_shortest_wait(database: Database, key: str, limit: Limit, at: datetime) -> int:
    """Refused at `at`; still refused a second before `at + retry_after_s`, allowed from then on. (A refused
    request counts for nothing, so probing does not change the answer.)"""
    refusal = hit(database, [(key, limit)], at)
    assert refusal is not None
    assert refusal.key == key
    assert refusal.retry_after_s >= 1
    assert not allowed(database, key, limit, at + timedelta(seconds=refusal.retry_after_s - 1))
    assert allowed(database, key, limit, at + timedelta(seconds=refusal.retry_after_s))
    return refusal.retry_after_s


# --- one key -----------------------------------------------------------------------------------------------


def test_each_key_has_its_own_limit(database: Database) -> None:
    limit = Limit(2, 60)
    assert [allowed(database, "a", limit, at(n)) for n in range(3)] == [True, True, False]
    assert allowed(database, "b", limit, at(3))
    assert allowed(database, "c", Limit(1, 60), at(3))
    assert not allowed(database, "c", Limit(1, 60), at(4))
    assert not allowed(database, "a", limit, at(4))


def test_refusals_are_not_recorded(database: Database) -> None:
    limit = Limit(3, 60)
    for n in range(3):
        assert allowed(database, "k", limit, at(n))
    refusal = hit(database, [("k", limit)], at(3))
    assert refusal is not None
    for second in range(4, 60):  # a client hammering for the rest of the window
        assert not allowed(database, "k", limit, at(second))
    # Free again when the first refusal said, as if there had been no hammering: had the refusals been
    # counted, the window would still be full of them.
    assert allowed(database, "k", limit, at(3 + refusal.retry_after_s))


def test_retry_after_is_the_shortest_whole_second_wait(database: Database) -> None:
    limit = Limit(2, 60)
    assert allowed(database, "k", limit, at(0))
    assert allowed(database, "k", limit, at(10))
    first = assert_retry_after_is_the_shortest_wait(database, "k", limit, at(30.25))  # allowed once more, then full
    assert 30 <= first <= 30 + 6  # when the request at 0 s has left the window (by at most a tenth more)
    assert_retry_after_is_the_shortest_wait(database, "k", limit, at(30.25 + first))
    assert allowed(database, "short", Limit(1, 1), at(0))
    assert assert_retry_after_is_the_shortest_wait(database, "short", Limit(1, 1), at(0.5)) == 1


def test_a_long_key_is_cut_to_the_column_and_still_counted(database: Database) -> None:
    long_key = "client:" + "x" * (2 * KEY_LENGTH)
    limit = Limit(1, 60)
    assert allowed(database, long_key, limit, at(0))
    assert not allowed(database, long_key, limit, at(1))
    assert not allowed(database, long_key[:KEY_LENGTH] + "-different-beyond-the-cut", limit, at(1))
    assert allowed(database, long_key[: KEY_LENGTH - 1], limit, at(1))


# --- the boundary of a fixed window ------------------------------------------------------------------------


def test_the_busiest_window_check_catches_a_fixed_window() -> None:
    """The attack below must be able to fail: against a fixed window it lets twice the limit through."""
    limit = Limit(5, 60)
    allowed = boundary_attack(fixed_window_limiter(), limit)
    assert len(allowed) == 2 * limit.requests
    assert busiest_window(allowed, limit.window_s) == 2 * limit.requests


def test_no_window_ever_holds_more_than_the_limit_around_a_boundary(database: Database) -> None:
    limit = Limit(5, 60)
    allowed = boundary_attack(database_limiter(database), limit)
    assert len(allowed) == limit.requests  # the second burst is refused entirely
    assert busiest_window(allowed, limit.window_s) == limit.requests


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    requests=st.integers(1, 4),
    window_s=st.integers(1, 30),
    gaps_ms=st.lists(st.integers(0, 20_000), min_size=1, max_size=25),
)
def test_a_sliding_window_refuses_what_the_last_window_holds_and_allows_below_the_limit(
    database: Database, requests: int, window_s: int, gaps_ms: list[int]
) -> None:
    """Refused when the last `window_s` seconds hold the limit already (so no window ever holds more); allowed
    when even the last 1.1 x `window_s` hold fewer (the window may err on the safe side by a tenth, no more)."""
    limit, key = Limit(requests, window_s), f"example-{next(EXAMPLES)}"
    moment, passed = T0, list[datetime]()
    for gap_ms in gaps_ms:
        moment += timedelta(milliseconds=gap_ms)
        in_window = [earlier for earlier in passed if earlier > moment - timedelta(seconds=window_s)]
        in_margin = [earlier for earlier in passed if earlier >= moment - timedelta(seconds=1.1 * window_s)]
        verdict = allowed(database, key, limit, moment)
        if len(in_window) >= requests:
            assert not verdict
        if len(in_margin) < requests:
            assert verdict
        if verdict:
            passed.append(moment)
    assert busiest_window(passed, window_s) <= requests


# --- several keys ------------------------------------------------------------------------------------------


def test_a_request_refused_by_any_key_is_counted_by_none(database: Database) -> None:
    learner, client = Limit(1, 60), Limit(5, 3600)
    assert hit(database, [("learner", learner), ("client", client)], at(0)) is None
    for second in range(1, 10):
        refusal = hit(database, [("learner", learner), ("client", client)], at(second))
        assert refusal is not None
        assert refusal.key == "learner"
    for n in range(4):  # the client key still has four requests left: the refused ones did not count
        assert allowed(database, "client", client, at(10 + n))
    assert not allowed(database, "client", client, at(14))
    assert not allowed(database, "learner", learner, at(14))


def test_the_longest_wait_of_the_refusing_keys_is_returned(database: Database) -> None:
    short, long = Limit(1, 10), Limit(1, 100)
    assert hit(database, [("short", short), ("long", long)], at(0)) is None
    both = hit(database, [("short", short), ("long", long)], at(5))
    assert both == hit(database, [("long", long), ("short", short)], at(5))  # in any order
    short_only = hit(database, [("short", short)], at(5))
    assert both is not None
    assert short_only is not None
    assert both.key == "long"
    assert both.retry_after_s >= 95 > short_only.retry_after_s


def test_a_key_may_guard_an_action_once(database: Database) -> None:
    with pytest.raises(ValueError, match="once"):
        hit(database, [("k", Limit(1, 60)), ("k", Limit(2, 60))], at(0))
    assert allowed(database, "k", Limit(1, 60), at(0))  # nothing was counted


# --- concurrency -------------------------------------------------------------------------------------------


def race(database: Database, keys: list[list[str]], limit: Limit) -> list[bool]:
    """Every request at the same moment, each in its own thread and transaction; which were allowed."""
    start = threading.Barrier(len(keys))

    def request(request_keys: list[str]) -> bool:
        start.wait()
        return hit(database, [(key, limit) for key in request_keys], at(0)) is None

    with ThreadPoolExecutor(max_workers=len(keys)) as pool:
        return list(pool.map(request, keys))


def test_concurrent_requests_never_exceed_the_limit(database: Database) -> None:
    limit = Limit(3, 60)
    for round_number in range(5):
        key = f"race-{round_number}"
        assert race(database, [[key]] * 12, limit).count(True) == limit.requests
        assert not allowed(database, key, limit, at(1))  # all of them were counted


def test_concurrent_requests_on_postgresql_take_the_keys_in_one_order(postgres_database_url: str) -> None:
    """Requests that name the same two keys in opposite orders neither deadlock nor exceed either limit: each
    key's advisory lock is taken in key order."""
    database = Database.from_url(postgres_database_url)
    try:
        limit = Limit(4, 60)
        assert race(database, [["x", "y"], ["y", "x"]] * 8, limit).count(True) == limit.requests
        assert not allowed(database, "x", limit, at(1))
        assert not allowed(database, "y", limit, at(1))
    finally:
        database.dispose()


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("198.51.100.7", "198.51.100.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::ffff", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::1", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
        ("testclient", "testclient"),
    ],
)
def test_a_client_is_keyed_by_its_network(host: str, key: str) -> None:
    assert client_network(host) == key
