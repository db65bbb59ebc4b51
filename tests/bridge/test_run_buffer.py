"""The bridge's per-run event buffer: ids after coalescing, replay after an id, live tail,
and when an ended run is let go (the API released it, or the retention time passed; not when a
client has read its end: the API may die before storing it)."""

from __future__ import annotations

import asyncio

from agentchat.bridge.live.buffer import RunBuffers
from agentchat.bridge.settings import BridgeSettings
from agentchat.protocol.events import AnswerDelta, RunEnd, Thinking
from agentchat.protocol.sse import parse_text


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
    buffer.append(RunEnd(status="SUCCESS", final_text="Hello world"))
    events = parse_text((await asyncio.wait_for(reader, 5)).decode())
    assert [(e.id, e.event) for e in events] == [
        ("2", "node_stream"),
        ("3", "node_stream"),
        ("4", "run_end"),
    ]
    assert buffer.last_event_id == 4 and buffer.state(waiting=False) == "ended"


async def test_an_ended_run_goes_once_released_or_its_time_passed_not_once_read() -> None:
    clock = Clock()
    buffers = RunBuffers(retention_s=300, clock=clock)
    stored, read, going = (
        buffers.open("stored", "s"),
        buffers.open("read", "s"),
        buffers.open("going", "s"),
    )
    assert read.state(waiting=True) == "waiting"
    for buffer in (stored, read):
        buffer.append(RunEnd(status="SUCCESS"))
        await _drain(buffer.read(0, keepalive_s=5))
    buffers.release("stored")
    buffers.release("going")  # still going: it goes once it ends
    buffers.release("never-held")
    assert [b.run_id for b in buffers.all()] == ["read", "going"]
    going.append(RunEnd(status="SUCCESS"))
    assert [b.run_id for b in buffers.all()] == ["read"]
    clock.now += 299
    assert buffers.get("read") is read
    clock.now += 1
    assert buffers.get("read") is None and buffers.all() == []


async def test_an_end_nobody_stored_outlasts_an_api_outage_of_an_hour() -> None:
    """The API releases every end it stores, so an ended run still held is one whose API died
    (or whose database refused the write) before storing it. Let go after five minutes, an API
    back after a longer outage (a failed deploy, a host reboot) found the run gone and stored a
    finished answer INTERRUPTED with only its checkpointed text."""
    clock = Clock()
    buffers = RunBuffers(retention_s=BridgeSettings().run_retention_s, clock=clock)
    buffer = buffers.open("run", "s")
    buffer.append(AnswerDelta(content="All of it"))
    buffer.append(RunEnd(status="SUCCESS", final_text="All of it"))
    clock.now += 3600
    buffers.prune()
    assert [b.run_id for b in buffers.all()] == ["run"]
    buffers.release("run")
    assert buffers.all() == []
