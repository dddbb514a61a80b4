"""A bounded memory of values derived from others: least recently used first out, safe to share between the
event loop and the threads PostgreSQL's sessions run in."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Remembered(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            if len(self._items) > self.size:
                self._items.popitem(last=False)

    def remember(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for `key`, else `make()`'s, kept from now on. `make` runs outside the lock, so a slow
        one holds up no other key; two threads that miss the same key at once both make it, and the later wins."""
        value = self.get(key)
        if value is None:
            value = make()
            self.put(key, value)
        return value

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        return len(self._items)
