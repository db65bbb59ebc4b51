"""The SSE body of a run stream (no servers: the in-process bus)."""

from __future__ import annotations

import asyncio

from pytest import MonkeyPatch

from agentchat.events.memory import MemoryEventBus
from agentchat.runs import streaming
from agentchat.runs.streaming import MAX_BUFFERED, _body, encode_single


async def test_a_client_that_does_not_read_is_cut_off_instead_of_buffered_forever() -> None:
    bus = MemoryEventBus()
    await bus.register("r", {})
    body = _body(bus, [("r", 0)], encode_single)
    assert await anext(body) == b": connected\n\n"
    for i in range(MAX_BUFFERED + 500):  # the client reads nothing meanwhile
        await bus.publish(
            "r", "node_stream", {"runId": "r", "kind": "answer_delta", "content": "t"}
        )
        if i % 100 == 0:
            await asyncio.sleep(0)
    await bus.publish("r", "workflow_complete", {"runId": "r", "finalText": ""})
    text = b"".join([chunk async for chunk in body])
    assert text.count(b"event: node_stream") == MAX_BUFFERED
    assert text.endswith(b'event: stream_interrupted\ndata: {"runId":"r"}\n\n')


async def test_a_reading_client_gets_every_event_then_the_end() -> None:
    bus = MemoryEventBus()
    await bus.register("r", {})
    for _ in range(3):
        await bus.publish("r", "node_stream", {"runId": "r", "kind": "status", "content": "x"})
    await bus.publish("r", "workflow_complete", {"runId": "r", "finalText": "done"})
    text = b"".join([chunk async for chunk in _body(bus, [("r", 1)], encode_single)])
    assert [line for line in text.split(b"\n") if line.startswith(b"id:")] == [
        b"id: 2",
        b"id: 3",
        b"id: 4",
    ]


async def test_an_idle_stream_is_pinged_and_a_busy_one_is_not(monkeypatch: MonkeyPatch) -> None:
    """A comment every PING_S while nothing is sent keeps proxies from closing the stream;
    events that flow are enough on their own."""
    monkeypatch.setattr(streaming, "PING_S", 0.2)
    bus = MemoryEventBus()
    await bus.register("r", {})
    body = _body(bus, [("r", 0)], encode_single)
    assert await anext(body) == b": connected\n\n"
    async with asyncio.timeout(5):
        assert await anext(body) == b": ping\n\n"  # idle

    async def feed() -> None:
        for _ in range(30):  # one event every 20 ms for 0.6 s: three ping periods
            await bus.publish("r", "node_stream", {"runId": "r", "kind": "status", "content": "x"})
            await asyncio.sleep(0.02)
        await bus.publish("r", "workflow_complete", {"runId": "r", "finalText": ""})

    feeding = asyncio.create_task(feed())
    async with asyncio.timeout(10):
        rest = b"".join([chunk async for chunk in body])
    await feeding
    assert rest.count(b"event: node_stream") == 30
    assert b": ping" not in rest
