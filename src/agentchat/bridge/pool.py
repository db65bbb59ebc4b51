"""An LRU pool of agents keyed by (session, home, model) and per-session turn locks."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
PoolKey = tuple[str, str, str]


def pool_key(session_id: str, home: str, model_id: str, api_key: str) -> PoolKey:
    """model_id names the endpoint, model and toolsets; the key is only kept as a hash."""
    key_hash = hashlib.sha256(api_key.encode()).hexdigest()[:16]
    return (session_id, home, f"{model_id}|{key_hash}")


class AgentPool(Generic[T]):
    """Thread-safe LRU. Evicted agents are simply dropped: the caller owns the history."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[PoolKey, T] = OrderedDict()
        self._lock = threading.Lock()
        self._session_locks: dict[str, threading.Lock] = {}

    def get_or_create(self, key: PoolKey, create: Callable[[], T]) -> tuple[T, bool]:
        """The pooled item for key (most recently used now), creating it if missing."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key], False
        item = create()
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return item, True

    def drop_session(self, session_id: str) -> int:
        with self._lock:
            keys = [k for k in self._items if k[0] == session_id]
            for key in keys:
                del self._items[key]
            return len(keys)

    def keys(self) -> list[PoolKey]:
        with self._lock:
            return list(self._items)

    def forget_lock(self, session_id: str) -> bool:
        """Drop the session's turn lock; False (kept) while a turn holds it."""
        with self._lock:
            lock = self._session_locks.get(session_id)
            if lock is not None and lock.locked():
                return False
            self._session_locks.pop(session_id, None)
            return True

    def session_lock(self, session_id: str) -> threading.Lock:
        with self._lock:
            return self._session_locks.setdefault(session_id, threading.Lock())
