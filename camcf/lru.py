"""A small thread-safe bounded LRU mapping: the one cache class of the explorer (finished runs,
discretised data, evaluation results and their ML-kNN caches)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import Any


class BoundedLRU:
    """Keeps at most ``max_entries`` values; the least recently used goes first.

    >>> lru = BoundedLRU(2)
    >>> lru.put("a", 1); lru.put("b", 2); _ = lru.get("a"); lru.put("c", 3)
    >>> lru.get("b") is None, lru.get("a"), lru.get("c")
    (True, 1, 3)
    >>> lru.get_or_put("d", lambda: 4), lru.get_or_put("d", lambda: 5), len(lru)
    (4, 4, 2)
    """

    def __init__(self, max_entries: int) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, got {max_entries}")
        self.max = max_entries
        self._d: OrderedDict = OrderedDict()
        self._lock = Lock()

    def __len__(self) -> int:
        return len(self._d)

    def __iter__(self):
        """The keys, from the least to the most recently used (a snapshot)."""
        with self._lock:
            return iter(list(self._d))

    def get(self, key: Hashable) -> Any:
        """The value stored under ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._d.get(key)
            if value is not None:
                self._d.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        """Store ``value``; the least recently used entries beyond ``max_entries`` go."""
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.max:
                self._d.popitem(last=False)

    def get_or_put(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value under ``key``; when absent, ``make()`` is stored and returned (``make``
        runs outside the lock, so a slow computation does not block other readers; an exception
        from it stores nothing)."""
        value = self.get(key)
        if value is None:
            value = make()
            self.put(key, value)
        return value
