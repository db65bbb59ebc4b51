"""Buses for the contract suite: every test runs on the in-process bus and on Redis.

Redis must be reachable at AGENTCHAT_TEST_REDIS_URL (default 127.0.0.1:6379): when it is not,
the Redis half fails rather than skips. Each test's keys live under a fresh prefix, deleted
afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from redis.asyncio import Redis

from agentchat.events import EventBus, InProcessEventBus, RedisEventBus

REDIS_URL = os.environ.get("AGENTCHAT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

BusFactory = Callable[..., EventBus]


async def delete_keys(prefix: str) -> None:
    client = Redis.from_url(REDIS_URL)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@pytest.fixture
async def redis_prefix() -> AsyncIterator[str]:
    """A key prefix of this test's own; its keys are deleted at the end."""
    prefix = f"agentchat-test:{uuid.uuid4().hex}:"
    yield prefix
    await delete_keys(prefix)


@pytest.fixture(params=["memory", "redis"])
def bus_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def make_bus(bus_kind: str) -> AsyncIterator[BusFactory]:
    """Builds buses of this test's kind; several Redis buses stand for several processes."""
    buses: list[EventBus] = []
    prefix = f"agentchat-test:{uuid.uuid4().hex}:"

    def make(**opts: Any) -> EventBus:
        bus: EventBus
        if bus_kind == "redis":
            bus = RedisEventBus.from_url(REDIS_URL, prefix=prefix, **opts)
        else:
            bus = InProcessEventBus(**opts)
        buses.append(bus)
        return bus

    yield make
    for bus in buses:
        await bus.close()
    if bus_kind == "redis":
        await delete_keys(prefix)


@pytest.fixture
async def bus(make_bus: BusFactory) -> EventBus:
    return make_bus()
