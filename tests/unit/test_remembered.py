"""The bounded memo (app/remembered.py) that every remembered value in app/ goes through."""

from __future__ import annotations

from app.remembered import Remembered


def test_remember_makes_a_value_once_and_then_returns_the_kept_one() -> None:
    made: list[str] = []
    memo: Remembered[str, str] = Remembered(4)

    def make(key: str) -> str:
        made.append(key)
        return key.upper()

    assert memo.remember("a", lambda: make("a")) == "A"
    assert memo.remember("a", lambda: make("a")) == "A"
    assert made == ["a"]
    assert "a" in memo


def test_the_least_recently_used_goes_first_when_full() -> None:
    memo: Remembered[int, int] = Remembered(2)
    memo.put(1, 10)
    memo.put(2, 20)
    assert memo.get(1) == 10  # 1 is now the most recent
    memo.put(3, 30)
    assert 2 not in memo
    assert memo.get(1) == 10
    assert memo.get(3) == 30
    assert len(memo) == 2


def test_remember_counts_as_a_use() -> None:
    memo: Remembered[int, int] = Remembered(2)
    memo.remember(1, lambda: 10)
    memo.remember(2, lambda: 20)
    memo.remember(1, lambda: -1)  # kept: a use, not a new value
    memo.remember(3, lambda: 30)
    assert 1 in memo
    assert 2 not in memo
    assert memo.get(1) == 10
