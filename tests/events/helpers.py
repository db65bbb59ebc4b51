"""Small async helpers for the event bus tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

from agentchat.events import BusEvent

TIMEOUT_S = 10.0


async def collect(events: AsyncIterator[BusEvent], timeout: float = TIMEOUT_S) -> list[int]:
    """The ids of everything the iterator yields until it ends."""
    async with asyncio.timeout(timeout):
        return [event.id async for event in events]


async def take(events: AsyncIterator[BusEvent], count: int) -> list[int]:
    """The ids of the next `count` events."""
    async with asyncio.timeout(TIMEOUT_S):
        return [(await anext(events)).id for _ in range(count)]


async def wait_until(
    condition: Callable[[], Awaitable[bool] | bool], timeout: float = TIMEOUT_S
) -> None:
    """Poll `condition` until it holds; fail after `timeout` seconds."""
    async with asyncio.timeout(timeout):
        while True:
            result = condition()
            if result if isinstance(result, bool) else await result:
                return
            await asyncio.sleep(0.01)


def ids(first: int, last: int) -> list[int]:
    return list(range(first, last + 1))
