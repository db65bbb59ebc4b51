"""The bridge's per-run event buffer: ids after coalescing, replay after an id, live tail,
and when an ended run is let go (its end read, or the retention time passed)."""

from __future__ import annotations

import asyncio

from agentchat.bridge.buffer import RunBuffers
from agentchat.events.contract import AnswerDelta, RunEnd, Thinking
from agentchat.events.sse import parse_text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def _drain(buffer_read: object) -> bytes:
    return b"".join([chunk async for chunk in buffer_read])  # type: ignore[attr-defined]


async def test_a_reader_gets_the_events_after_its_id_then_the_live_ones() -> None:
    buffers = RunBuffers(retention_s=300, clock=Clock())
    buffer = buffers.open("r1", "s1")
    buffer.append(Thinking(content="hmm"))
    buffer.append(AnswerDelta(content="Hello"))
    reader = asyncio.create_task(_drain(buffer.read(1, keepalive_s=5)))
    await asyncio.sleep(0)
    buffer.append(AnswerDelta(content=" world"))
    buffer.append(RunEnd(status="success", final_text="Hello world"))
    events = parse_text((await asyncio.wait_for(reader, 5)).decode())
    assert [(e.id, e.event) for e in events] == [
        ("2", "node_stream"),
        ("3", "node_stream"),
        ("4", "run_end"),
    ]
    assert buffer.last_event_id == 4 and buffer.state(waiting=False) == "ended"


async def test_an_ended_run_goes_once_its_end_was_read_or_its_time_passed() -> None:
    clock = Clock()
    buffers = RunBuffers(retention_s=300, clock=clock)
    read, unread = buffers.open("read", "s"), buffers.open("unread", "s")
    assert read.state(waiting=True) == "waiting"
    for buffer in (read, unread):
        buffer.append(RunEnd(status="success"))
    await _drain(read.read(0, keepalive_s=5))
    assert [b.run_id for b in buffers.all()] == ["unread"]
    clock.now += 299
    assert buffers.get("unread") is unread
    clock.now += 1
    assert buffers.get("unread") is None and buffers.all() == []
