"""The event bus contract, run on the in-process bus and on the Redis Streams bus."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time

import pytest

from agentchat.events import (
    EventBus,
    RunFinished,
    StreamInterrupted,
    SubscriberLagged,
    UnknownRun,
)
from tests.events.conftest import BusFactory
from tests.events.helpers import collect, ids, take, wait_until

RUN = "run-1"
DONE = ("workflow_complete", {"runId": RUN, "finalText": "ok"})


def delta(n: int) -> tuple[str, dict[str, object]]:
    return "node_stream", {"runId": RUN, "kind": "answer_delta", "content": f"t{n}"}


async def publish_deltas(bus: EventBus, count: int, run_id: str = RUN) -> None:
    for n in range(count):
        await bus.publish(run_id, *delta(n))


async def test_ids_count_up_from_one(bus: EventBus) -> None:
    await bus.register(RUN, {"sessionId": 7})
    singles = [await bus.publish(RUN, *delta(n)) for n in range(3)]
    batch = await bus.publish_many(RUN, [delta(n) for n in range(3, 6)])
    assert [e.id for e in singles + batch] == ids(1, 6)
    history = await bus.history(RUN)
    assert [e.id for e in history] == ids(1, 6)
    assert [e.data["content"] for e in history] == [f"t{n}" for n in range(6)]
    assert [e.id for e in await bus.history(RUN, after=4)] == [5, 6]
    assert await bus.publish_many(RUN, []) == []
    assert (await bus.publish(RUN, *delta(6))).id == 7


async def test_meta_is_stored_with_the_run(bus: EventBus) -> None:
    await bus.register(RUN, {"sessionId": 7, "messageId": 9})
    assert await bus.is_known(RUN)
    assert await bus.meta(RUN) == {"sessionId": 7, "messageId": 9}


async def test_replay_after_an_id_then_live_exactly_once(bus: EventBus) -> None:
    await bus.register(RUN, {})
    await publish_deltas(bus, 5)
    events = bus.subscribe(RUN, last_event_id=3)
    assert await take(events, 2) == [4, 5]
    await publish_deltas(bus, 3)
    await bus.publish(RUN, *DONE)
    assert await collect(events) == ids(6, 9)


async def test_subscriber_waiting_before_the_first_event_gets_everything(bus: EventBus) -> None:
    await bus.register(RUN, {})
    received = asyncio.create_task(collect(bus.subscribe(RUN)))
    await wait_until(lambda: bus.subscriber_count(RUN) == 1)
    await publish_deltas(bus, 10)
    await bus.publish(RUN, *DONE)
    assert await received == ids(1, 11)


async def test_finished_run_replays_everything_and_ends(bus: EventBus) -> None:
    await bus.register(RUN, {})
    await publish_deltas(bus, 4)
    await bus.publish(RUN, *DONE)
    assert await collect(bus.subscribe(RUN)) == ids(1, 5)
    assert await collect(bus.subscribe(RUN, last_event_id=2)) == ids(3, 5)
    assert await collect(bus.subscribe(RUN, last_event_id=5)) == []


async def test_a_resume_past_the_end_of_a_finished_run_gets_its_terminal_event(
    bus: EventBus,
) -> None:
    """Issue 34 item 11: a `Last-Event-ID` past the end (ids of an earlier life of the bus, a
    client's mistake) closed the stream with no final event; the client never learnt the end."""
    await bus.register(RUN, {})
    await publish_deltas(bus, 4)
    await bus.publish(RUN, *DONE)
    assert await collect(bus.subscribe(RUN, last_event_id=6)) == [5]
    assert await collect(bus.subscribe(RUN, last_event_id=10**6)) == [5]
    assert await collect(bus.subscribe(RUN, last_event_id=5)) == []  # had it: nothing again


async def test_finish_ends_live_subscribers_and_later_ones(bus: EventBus) -> None:
    await bus.register(RUN, {})
    await publish_deltas(bus, 2)
    live = asyncio.create_task(collect(bus.subscribe(RUN)))
    await wait_until(lambda: bus.subscriber_count(RUN) == 1)
    await bus.finish(RUN)
    await bus.finish(RUN)  # idempotent
    assert await live == [1, 2]
    assert await collect(bus.subscribe(RUN, last_event_id=1)) == [2]
    assert await collect(bus.subscribe(RUN, last_event_id=2)) == []


async def test_publishing_after_the_end_is_refused(bus: EventBus) -> None:
    await bus.register(RUN, {})
    await bus.publish(RUN, *DONE)
    with pytest.raises(RunFinished):
        await bus.publish(RUN, *delta(0))
    await bus.finish(RUN)
    assert [e.id for e in await bus.history(RUN)] == [1]


async def test_a_terminal_event_must_end_its_batch(bus: EventBus) -> None:
    await bus.register(RUN, {})
    with pytest.raises(RunFinished):
        await bus.publish_many(RUN, [delta(0), DONE, delta(1)])
    assert await bus.history(RUN) == []
    published = await bus.publish_many(RUN, [delta(0), DONE])
    assert [e.id for e in published] == [1, 2]
    assert await collect(bus.subscribe(RUN)) == [1, 2]


async def test_unknown_run(bus: EventBus) -> None:
    assert not await bus.is_known("nope")
    assert await bus.meta("nope") is None
    with pytest.raises(UnknownRun):
        await collect(bus.subscribe("nope"))
    with pytest.raises(UnknownRun):
        await bus.publish("nope", *delta(0))
    with pytest.raises(UnknownRun):
        await bus.history("nope")
    await bus.finish("nope")
    assert not await bus.is_known("nope")


async def test_many_subscribers_joining_at_random_points_get_every_event_once(
    bus: EventBus,
) -> None:
    total, subscribers = 600, 200
    await bus.register(RUN, {})
    rng = random.Random(5)
    published = 0

    async def publisher() -> None:
        nonlocal published
        for n in range(total - 1):
            await bus.publish(RUN, *delta(n))
            published += 1
            if n % 3 == 0:
                await asyncio.sleep(0)
        await bus.publish(RUN, *DONE)

    async def subscriber() -> tuple[int, list[int]]:
        await asyncio.sleep(rng.random() * 0.05)
        after = rng.randint(0, published)
        return after, await collect(bus.subscribe(RUN, last_event_id=after), timeout=30)

    results = await asyncio.gather(publisher(), *(subscriber() for _ in range(subscribers)))
    for after, got in results[1:]:
        assert got == ids(after + 1, total)


async def test_replay_longer_than_a_read_chunk_while_publishing_has_no_gap(
    bus: EventBus,
) -> None:
    await bus.register(RUN, {})
    await bus.publish_many(RUN, [delta(n) for n in range(2500)])
    received = asyncio.create_task(collect(bus.subscribe(RUN), timeout=30))
    await publish_deltas(bus, 500)
    await bus.publish(RUN, *DONE)
    assert await received == ids(1, 3001)


async def test_concurrent_publishes_keep_ids_dense(bus: EventBus) -> None:
    await bus.register(RUN, {})

    async def worker(w: int) -> list[int]:
        got = [(await bus.publish(RUN, *delta(w * 100 + n))).id for n in range(20)]
        batch = await bus.publish_many(RUN, [delta(n) for n in range(5)])
        return got + [e.id for e in batch]

    results = await asyncio.gather(*(worker(w) for w in range(20)))
    assert sorted(i for got in results for i in got) == ids(1, 500)
    assert [e.id for e in await bus.history(RUN)] == ids(1, 500)


async def test_lagging_subscriber_is_dropped_and_does_not_slow_the_run(
    make_bus: BusFactory,
) -> None:
    bus = make_bus(queue_size=50)
    await bus.register(RUN, {})
    stalled = bus.subscribe(RUN)
    healthy = asyncio.create_task(collect(bus.subscribe(RUN), timeout=30))
    await bus.publish(RUN, *delta(0))
    assert await take(stalled, 1) == [1]
    started = time.perf_counter()
    await publish_deltas(bus, 499)
    await bus.publish(RUN, *DONE)
    assert time.perf_counter() - started < 5.0
    assert await healthy == ids(1, 501)
    with pytest.raises(SubscriberLagged):
        await collect(stalled)
    assert issubclass(SubscriberLagged, StreamInterrupted)
    assert bus.subscriber_count(RUN) == 0


async def test_subscriber_leaving_midway_is_removed(bus: EventBus) -> None:
    await bus.register(RUN, {})
    await publish_deltas(bus, 5)
    async with contextlib.aclosing(bus.subscribe(RUN)) as events:
        async for event in events:
            if event.id == 5:
                break
    assert bus.subscriber_count(RUN) == 0
    await publish_deltas(bus, 3)
    assert [e.id for e in await bus.history(RUN)] == ids(1, 8)


async def test_abandoned_iterator_is_removed_when_collected(bus: EventBus) -> None:
    await bus.register(RUN, {})
    await publish_deltas(bus, 3)
    events = bus.subscribe(RUN)
    assert await take(events, 3) == [1, 2, 3]
    assert bus.subscriber_count(RUN) == 1
    del events
    gc.collect()
    await wait_until(lambda: bus.subscriber_count(RUN) == 0)


async def test_finished_runs_are_forgotten_after_the_retention(make_bus: BusFactory) -> None:
    bus = make_bus(retention_s=0.5)
    await bus.register(RUN, {"sessionId": 1})
    await bus.register("still-running", {})
    await publish_deltas(bus, 2)
    await bus.publish(RUN, *DONE)
    assert await bus.is_known(RUN)
    await wait_until(lambda: _forgotten(bus, RUN), timeout=5)
    assert await bus.meta(RUN) is None
    with pytest.raises(UnknownRun):
        await collect(bus.subscribe(RUN))
    assert await bus.is_known("still-running")


async def _forgotten(bus: EventBus, run_id: str) -> bool:
    return not await bus.is_known(run_id)


async def test_close_interrupts_open_subscriptions(make_bus: BusFactory) -> None:
    bus = make_bus()
    await bus.register(RUN, {})
    live = asyncio.create_task(collect(bus.subscribe(RUN)))
    await wait_until(lambda: bus.subscriber_count(RUN) == 1)
    await bus.close()
    with pytest.raises(StreamInterrupted):
        await live


async def test_ping_answers_while_the_bus_is_there(bus: EventBus) -> None:
    await bus.ping()  # raises when it is not: the run service's bus watch relies on it
