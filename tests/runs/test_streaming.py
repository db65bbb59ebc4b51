"""The SSE response of a run stream, driven as an ASGI app (no servers: the in-process bus)."""

from __future__ import annotations

import asyncio
from typing import Any

from pytest import MonkeyPatch

from agentchat.events.in_process import InProcessEventBus
from agentchat.runs.http import streaming
from agentchat.runs.http.streaming import multi_run_stream, run_stream


class Client:
    """The server side of one connection: what the response sent, and a disconnect to give."""

    def __init__(self, *, read: bool = True) -> None:
        """`read=False`: the client reads the first chunk, then nothing until `reading` is set."""
        self.chunks: list[bytes] = []
        self.ended = asyncio.Event()
        self.gone = asyncio.Event()
        self.reading = asyncio.Event()
        if read:
            self.reading.set()

    async def receive(self) -> dict[str, Any]:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200
            return
        if self.chunks:
            await self.reading.wait()  # a client that does not read: the socket stays full
        self.chunks.append(message["body"])
        if not message.get("more_body"):
            self.ended.set()

    @property
    def text(self) -> bytes:
        return b"".join(self.chunks)


def serve(response: Any, client: Client) -> asyncio.Task[None]:
    return asyncio.create_task(response({"type": "http"}, client.receive, client.send))


async def test_a_client_that_does_not_read_is_cut_off_and_costs_a_bounded_queue() -> None:
    bus = InProcessEventBus(queue_size=500)
    await bus.register("r", {})
    client = Client(read=False)
    task = serve(run_stream(bus, "r", 0), client)
    async with asyncio.timeout(5):
        while bus.subscriber_count("r") == 0:
            await asyncio.sleep(0.01)
    for i in range(2000):  # the client reads nothing meanwhile
        await bus.publish(
            "r", "node_stream", {"runId": "r", "kind": "answer_delta", "content": "t"}
        )
        if i % 100 == 0:
            await asyncio.sleep(0)
    assert bus.subscriber_count("r") == 0  # dropped at its queue's limit, not buffered
    client.reading.set()
    async with asyncio.timeout(5):
        await task
    assert client.text.count(b"event: node_stream") < 600
    assert client.text.endswith(b'event: stream_interrupted\ndata: {"runId":"r"}\n\n'), client.text[
        -200:
    ]


async def test_a_reading_client_gets_every_event_after_its_last_id_then_the_end() -> None:
    bus = InProcessEventBus()
    await bus.register("r", {})
    for _ in range(3):
        await bus.publish("r", "node_stream", {"runId": "r", "kind": "status", "content": "x"})
    await bus.publish("r", "workflow_complete", {"runId": "r", "finalText": "done"})
    client = Client()
    async with asyncio.timeout(5):
        await serve(run_stream(bus, "r", 1), client)
    assert client.text.startswith(b": connected\n\n")
    assert [line for line in client.text.split(b"\n") if line.startswith(b"id:")] == [
        b"id: 2",
        b"id: 3",
        b"id: 4",
    ]
    assert client.ended.is_set()


async def test_several_runs_share_one_connection_tagged_by_run() -> None:
    bus = InProcessEventBus()
    for run in ("a", "b"):
        await bus.register(run, {})
        await bus.publish(run, "node_stream", {"runId": run, "kind": "status", "content": "x"})
        await bus.publish(run, "workflow_complete", {"runId": run, "finalText": ""})
    client = Client()
    async with asyncio.timeout(5):
        await serve(multi_run_stream(bus, [("a", 0), ("b", 1), ("nope", 0)]), client)
    ids = sorted(line for line in client.text.split(b"\n") if line.startswith(b"id:"))
    assert ids == [b"id: a:1", b"id: a:2", b"id: b:2"]
    assert b'event: run_unknown\ndata: {"runId":"nope"}' in client.text


async def test_a_client_that_goes_away_ends_the_response_and_its_subscription() -> None:
    bus = InProcessEventBus()
    await bus.register("r", {})
    client = Client()
    task = serve(run_stream(bus, "r", 0), client)
    async with asyncio.timeout(5):
        while bus.subscriber_count("r") == 0:
            await asyncio.sleep(0.01)
    client.gone.set()
    async with asyncio.timeout(5):
        await task
    assert bus.subscriber_count("r") == 0


async def test_an_idle_stream_is_pinged_and_a_busy_one_is_not(monkeypatch: MonkeyPatch) -> None:
    """A comment every PING_S while nothing is sent keeps proxies from closing the stream;
    events that flow are enough on their own."""
    monkeypatch.setattr(streaming, "PING_S", 0.2)
    bus = InProcessEventBus()
    await bus.register("r", {})
    client = Client()
    task = serve(run_stream(bus, "r", 0), client)
    async with asyncio.timeout(5):
        while b": ping\n\n" not in client.text:  # idle
            await asyncio.sleep(0.02)
    assert client.text == b": connected\n\n: ping\n\n"
    idle = len(client.chunks)
    for _ in range(30):  # one event every 20 ms for 0.6 s: three ping periods
        await bus.publish("r", "node_stream", {"runId": "r", "kind": "status", "content": "x"})
        await asyncio.sleep(0.02)
    await bus.publish("r", "workflow_complete", {"runId": "r", "finalText": ""})
    async with asyncio.timeout(10):
        await task
    rest = b"".join(client.chunks[idle:])
    assert rest.count(b"event: node_stream") == 30
    assert b": ping" not in rest
