"""What only the in-process bus promises: bounded retention and a publish that never waits."""

from __future__ import annotations

import asyncio

import pytest

from agentchat.events import InProcessEventBus, SubscriberLagged, make_bus
from tests.events.helpers import collect, take


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_finished_runs_are_kept_for_the_retention_then_forgotten() -> None:
    clock = FakeClock()
    bus = InProcessEventBus(retention_s=60, clock=clock)
    await bus.register("a", {})
    await bus.publish("a", "workflow_complete", {})
    clock.now += 59
    assert await bus.is_known("a")
    assert [e.id for e in await bus.history("a")] == [1]
    clock.now += 2
    assert not await bus.is_known("a")


async def test_unfinished_runs_are_never_forgotten() -> None:
    clock = FakeClock()
    bus = InProcessEventBus(retention_s=1, clock=clock)
    await bus.register("live", {})
    await bus.publish("live", "node_stream", {})
    clock.now += 10_000
    assert await bus.is_known("live")


async def test_only_the_newest_finished_runs_are_kept_past_the_cap() -> None:
    bus = InProcessEventBus(max_finished_runs=3)
    for n in range(5):
        await bus.register(f"r{n}", {})
        await bus.finish(f"r{n}")
    await bus.register("live", {})
    known = [n for n in range(5) if await bus.is_known(f"r{n}")]
    assert known == [2, 3, 4]
    assert await bus.is_known("live")


async def test_publish_never_yields_to_the_loop_even_with_a_stalled_subscriber() -> None:
    bus = InProcessEventBus(queue_size=100)
    await bus.register("r", {})
    stalled = bus.subscribe("r")
    await bus.publish("r", "node_stream", {"n": 0})
    assert await take(stalled, 1) == [1]
    other_ran = False

    async def other() -> None:
        nonlocal other_ran
        other_ran = True

    task = asyncio.create_task(other())
    for n in range(1000):
        await bus.publish("r", "node_stream", {"n": n})
    assert not other_ran, "publish awaited something that yielded"
    await task
    assert bus.subscriber_count("r") == 0
    with pytest.raises(SubscriberLagged):
        await collect(stalled)


def test_make_bus_without_a_url_is_in_process() -> None:
    assert isinstance(make_bus(None, retention_s=5), InProcessEventBus)
