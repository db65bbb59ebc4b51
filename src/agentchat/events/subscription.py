"""One subscriber's bounded queue: filled synchronously by a bus, drained by the subscriber."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

from agentchat.events.model import BusClosed, BusEvent, StreamInterrupted, SubscriberLagged

DEFAULT_QUEUE_SIZE = 10_000


class Subscription:
    """A bounded queue that never blocks the producer.

    `offer` is O(1) and never awaits: a subscriber that is `maxsize` events behind is
    marked lagged, its queue is dropped, and its reader raises `SubscriberLagged`.
    """

    __slots__ = ("_ended", "_error", "_items", "_maxsize", "_wakeup")

    def __init__(self, maxsize: int = DEFAULT_QUEUE_SIZE) -> None:
        self._items: deque[BusEvent] = deque()
        self._maxsize = maxsize
        self._wakeup = asyncio.Event()
        self._ended = False
        self._error: StreamInterrupted | None = None

    @property
    def open(self) -> bool:
        return not self._ended and self._error is None

    def offer(self, event: BusEvent) -> bool:
        """Queue an event; False when the subscriber is gone (lagged or ended)."""
        if not self.open:
            return False
        if len(self._items) >= self._maxsize:
            self.interrupt(SubscriberLagged(f"subscriber fell {self._maxsize} events behind"))
            return False
        self._items.append(event)
        self._wakeup.set()
        return True

    def end(self) -> None:
        """The run finished: the reader drains what is queued, then stops."""
        self._ended = True
        self._wakeup.set()

    def interrupt(self, error: StreamInterrupted | None = None) -> None:
        """Drop the subscriber: its reader raises `error` at once."""
        self._error = error or BusClosed("event bus closed")
        self._items.clear()
        self._wakeup.set()

    def check(self) -> None:
        """Raise at once if the subscriber was dropped (lagged, or the bus closed)."""
        if self._error is not None:
            raise self._error

    async def get(self) -> BusEvent | None:
        """The next event, or None once ended and drained."""
        while True:
            if self._error is not None:
                raise self._error
            if self._items:
                return self._items.popleft()
            if self._ended:
                return None
            self._wakeup.clear()
            await self._wakeup.wait()


async def follow(sub: Subscription, last_id: int) -> AsyncIterator[BusEvent]:
    """The live tail: events after `last_id`, once each, up to the terminal one."""
    while (event := await sub.get()) is not None:
        if event.id <= last_id:
            continue
        yield event
        last_id = event.id
        if event.is_terminal:
            return
