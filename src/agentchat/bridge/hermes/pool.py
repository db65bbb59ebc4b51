"""An LRU pool of agents keyed by (session, home, model) and per-session turn locks."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")
PoolKey = tuple[str, str, str]


def pool_key(session_id: str, home: str, model_id: str, api_key: str) -> PoolKey:
    """model_id names the endpoint, model and toolsets; the key is only kept as a hash."""
    key_hash = hashlib.sha256(api_key.encode()).hexdigest()[:16]
    return (session_id, home, f"{model_id}|{key_hash}")


@dataclass
class _TurnLock:
    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0  # turns holding or waiting for it


class AgentPool(Generic[T]):
    """Thread-safe LRU. Evicted agents are simply dropped: the caller owns the history.

    A session is held here while it has a pooled agent or a turn (running or waiting for its
    lock). `on_idle(session_id)` is called, under the pool's lock, when it stops being held:
    its last agent was evicted while no turn of it ran, or its last turn ended with no agent
    of it pooled. A bridge serves tens of thousands of chats: what it keeps per session must
    not outlive this."""

    def __init__(self, size: int, on_idle: Callable[[str], None] | None = None) -> None:
        self.size = size
        self._items: OrderedDict[PoolKey, T] = OrderedDict()
        self._lock = threading.Lock()
        self._turn_locks: dict[str, _TurnLock] = {}
        self._on_idle = on_idle

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
                evicted, _ = self._items.popitem(last=False)
                self._idle_if_unheld(evicted[0])
        return item, True

    def drop_session(self, session_id: str) -> int:
        return self._drop(lambda key: key[0] == session_id)

    def drop_home(self, home: str) -> int:
        """Drop the agents of one hermes home (a person who was deleted)."""
        return self._drop(lambda key: key[1] == home)

    def _drop(self, matches: Callable[[PoolKey], bool]) -> int:
        with self._lock:
            keys = [k for k in self._items if matches(k)]
            for key in keys:
                del self._items[key]
            return len(keys)

    def keys(self) -> list[PoolKey]:
        with self._lock:
            return list(self._items)

    def in_turn(self, session_id: str) -> bool:
        """Whether a turn of the session runs or waits for its lock."""
        with self._lock:
            return session_id in self._turn_locks

    @contextmanager
    def turn_lock(self, session_id: str) -> Iterator[threading.Lock]:
        """The lock that serialises the session's turns (not acquired here). It lasts while
        a turn holds or waits for it: a session's lock is not kept for ever."""
        with self._lock:
            entry = self._turn_locks.setdefault(session_id, _TurnLock())
            entry.users += 1
        try:
            yield entry.lock
        finally:
            with self._lock:
                entry.users -= 1
                if entry.users == 0:
                    del self._turn_locks[session_id]
                    self._idle_if_unheld(session_id)

    def _idle_if_unheld(self, session_id: str) -> None:
        """Called with the pool's lock held."""
        if self._on_idle is None or session_id in self._turn_locks:
            return
        if not any(key[0] == session_id for key in self._items):
            self._on_idle(session_id)
