"""What only the Redis bus promises: several processes, stream layout, expiry, reconnects."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from agentchat.events import RedisEventBus, make_bus
from tests.events.conftest import REDIS_URL
from tests.events.helpers import collect, ids, wait_until

DONE = ("workflow_complete", {"finalText": "ok"})


@pytest.fixture
async def admin() -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL)
    yield client
    await client.aclose()


@pytest.fixture
async def buses(redis_prefix: str) -> AsyncIterator[list[RedisEventBus]]:
    """Two buses on one prefix: two API processes."""
    pair = [RedisEventBus.from_url(REDIS_URL, prefix=redis_prefix) for _ in range(2)]
    yield pair
    for bus in pair:
        await bus.close()


def delta(n: int) -> tuple[str, dict[str, Any]]:
    return "node_stream", {"kind": "answer_delta", "content": f"t{n}"}


async def test_events_published_in_one_process_stream_in_another(
    buses: list[RedisEventBus],
) -> None:
    a, b = buses
    await a.register("r", {"sessionId": 3})
    await a.publish_many("r", [delta(n) for n in range(5)])
    assert await b.meta("r") == {"sessionId": 3}
    from_start = asyncio.create_task(collect(b.subscribe("r")))
    from_three = asyncio.create_task(collect(b.subscribe("r", last_event_id=3)))
    await wait_until(lambda: b.subscriber_count("r") == 2)
    for n in range(5, 20):
        await a.publish("r", *delta(n))
    await a.publish("r", *DONE)
    assert await from_start == ids(1, 21)
    assert await from_three == ids(4, 21)
    assert b.subscriber_count("r") == 0


async def test_finish_in_one_process_ends_subscribers_in_another(
    buses: list[RedisEventBus],
) -> None:
    a, b = buses
    await a.register("r", {})
    await a.publish("r", *delta(0))
    live = asyncio.create_task(collect(b.subscribe("r")))
    await wait_until(lambda: b.subscriber_count("r") == 1)
    await a.finish("r")
    assert await live == [1]
    assert await collect(b.subscribe("r", last_event_id=1)) == []


async def test_two_processes_publishing_to_one_run_keep_ids_dense(
    buses: list[RedisEventBus],
) -> None:
    a, b = buses
    await a.register("r", {})

    async def publish(bus: RedisEventBus) -> list[int]:
        return [(await bus.publish("r", *delta(n))).id for n in range(100)]

    got_a, got_b = await asyncio.gather(publish(a), publish(b))
    assert sorted(got_a + got_b) == ids(1, 200)
    assert [e.id for e in await b.history("r")] == ids(1, 200)


async def test_stream_entry_ids_are_event_ids_and_keys_expire(
    make_prefixed_bus: Any, admin: Redis, redis_prefix: str
) -> None:
    bus = make_prefixed_bus(retention_s=30, live_ttl_s=600)
    stream, state = f"{redis_prefix}run:{{r}}", f"{redis_prefix}run:{{r}}:state"
    await bus.register("r", {})
    await bus.publish_many("r", [delta(0), delta(1)])
    assert [entry_id for entry_id, _ in await admin.xrange(stream)] == [b"1-0", b"2-0"]
    assert 590_000 < await admin.pttl(stream) <= 600_000
    await bus.publish("r", *DONE)
    assert 0 < await admin.pttl(stream) <= 30_000
    assert 0 < await admin.pttl(state) <= 30_000


async def test_finish_appends_a_marker_after_the_last_event(
    make_prefixed_bus: Any, admin: Redis, redis_prefix: str
) -> None:
    bus = make_prefixed_bus()
    await bus.register("r", {})
    await bus.publish("r", *delta(0))
    await bus.finish("r")
    await bus.finish("r")
    stream = f"{redis_prefix}run:{{r}}"
    assert [entry_id for entry_id, _ in await admin.xrange(stream)] == [b"1-0", b"1-1"]
    assert [e.id for e in await bus.history("r")] == [1]


async def test_reader_resumes_where_it_was_after_losing_its_connection(
    redis_prefix: str, admin: Redis
) -> None:
    name = f"bus-reader-{uuid.uuid4().hex[:8]}"
    reader = Redis.from_url(REDIS_URL, client_name=name, socket_timeout=10)
    bus = RedisEventBus(Redis.from_url(REDIS_URL), reader, prefix=redis_prefix)
    try:
        await bus.register("r", {})
        live = asyncio.create_task(collect(bus.subscribe("r"), timeout=20))
        await wait_until(lambda: bus.subscriber_count("r") == 1)
        await bus.publish_many("r", [delta(n) for n in range(50)])
        killed = await _kill_clients(admin, name)
        assert killed == 1
        await bus.publish_many("r", [delta(n) for n in range(50, 100)])
        await bus.publish("r", *DONE)
        assert await live == ids(1, 101)
    finally:
        await bus.close()


async def _kill_clients(admin: Redis, name: str) -> int:
    clients = [c for c in await admin.client_list() if c.get("name") == name]
    for client in clients:
        await admin.client_kill_filter(_id=client["id"])
    return len(clients)


async def test_works_over_resp3_clients(redis_prefix: str) -> None:
    bus = RedisEventBus(
        Redis.from_url(REDIS_URL, protocol=3),
        Redis.from_url(REDIS_URL, protocol=3),
        prefix=redis_prefix,
    )
    try:
        await bus.register("r", {})
        live = asyncio.create_task(collect(bus.subscribe("r")))
        await wait_until(lambda: bus.subscriber_count("r") == 1)
        await bus.publish_many("r", [delta(0), delta(1), DONE])
        assert await live == [1, 2, 3]
    finally:
        await bus.close()


async def test_make_bus_with_a_url_is_redis(redis_prefix: str) -> None:
    bus = make_bus(REDIS_URL, prefix=redis_prefix, retention_s=5)
    try:
        assert isinstance(bus, RedisEventBus)
        await bus.register("r", {"a": 1})
        assert await bus.meta("r") == {"a": 1}
    finally:
        await bus.close()


@pytest.fixture
async def make_prefixed_bus(redis_prefix: str) -> AsyncIterator[Any]:
    made: list[RedisEventBus] = []

    def make(**opts: Any) -> RedisEventBus:
        made.append(RedisEventBus.from_url(REDIS_URL, prefix=redis_prefix, **opts))
        return made[-1]

    yield make
    for bus in made:
        await bus.close()
