"""A small thread-safe bounded LRU mapping (used by the explorer to keep finished runs)."""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock


class BoundedLRU:
    """Keeps at most ``max_entries`` values; the least recently used goes first.

    >>> lru = BoundedLRU(2)
    >>> lru.put("a", 1); lru.put("b", 2); _ = lru.get("a"); lru.put("c", 3)
    >>> lru.get("b") is None, lru.get("a"), lru.get("c")
    (True, 1, 3)
    """

    def __init__(self, max_entries: int) -> None:
        self.max = max_entries
        self._d: OrderedDict = OrderedDict()
        self._lock = Lock()

    def get(self, key):
        with self._lock:
            value = self._d.get(key)
            if value is not None:
                self._d.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.max:
                self._d.popitem(last=False)
