"""The interface every event bus implements (in-process and Redis Streams)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from agentchat.events.model import BusEvent


class EventBus(Protocol):
    """Run-scoped, ordered, replayable event streams.

    Ids count 1, 2, 3… within a run. `subscribe` replays every event after
    `last_event_id` exactly once, in order, then follows live and ends after the terminal
    event (at once after the replay when the run has finished; a finished run resumed from
    past its last id gets its terminal event, so every stream ends with one). It raises
    `UnknownRun` on its first iteration for a run the bus does not know, and `SubscriberLagged` (a
    `StreamInterrupted`) when the subscriber falls a whole queue behind: the caller ends the
    stream and the client reconnects with `Last-Event-ID`. Close an abandoned iterator with
    `contextlib.aclosing` (or let it be collected) to unsubscribe.
    """

    async def register(self, run_id: str, meta: dict[str, Any]) -> None: ...

    async def publish(self, run_id: str, event: str, data: dict[str, Any]) -> BusEvent: ...

    async def publish_many(
        self, run_id: str, items: list[tuple[str, dict[str, Any]]]
    ) -> list[BusEvent]: ...

    def subscribe(self, run_id: str, last_event_id: int = 0) -> AsyncIterator[BusEvent]: ...

    async def history(self, run_id: str, after: int = 0) -> list[BusEvent]: ...

    async def is_known(self, run_id: str) -> bool: ...

    async def meta(self, run_id: str) -> dict[str, Any] | None: ...

    async def finish(self, run_id: str) -> None: ...

    async def ping(self) -> None:
        """Return once the bus answers; raise (a Redis or OS error) when it does not."""
        ...

    def subscriber_count(self, run_id: str) -> int:
        """Subscribers of the run attached to this bus instance (this process)."""
        ...

    async def close(self) -> None: ...
