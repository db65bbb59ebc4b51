"""SSE responses for runs: one run (`Last-Event-ID` resume) or several runs on one connection.

Each run's events are written to the connection by the task that reads them from the bus: one
task wake-up per event, no body iterator, buffer or timer in between (this path runs for every
token of every live answer). A client that does not read makes its writes wait on its socket;
its subscription then fills and the bus drops it past its limit, so it costs its own queue only
and ends with `stream_interrupted` (the client resumes with `Last-Event-ID`). The response's own
task sends a comment ping when nothing was written for PING_S, and ends the response when every
run has ended or the client has gone.

A run the bus does not know is `run_unknown`, unless its answer is still RUNNING: Redis lost it
(restarted empty) and its driver is putting it back, so the client is told to come back
(`stream_interrupted`) rather than that the run is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from agentchat.events.bus import EventBus
from agentchat.events.model import BusEvent, StreamInterrupted, UnknownRun, encode_sse
from agentchat.protocol import sse

PING_S = 15.0
YIELD_EVERY = 200  # events written back to back before the writer lets other tasks run
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
CONNECTED = sse.comment("connected")
PING = sse.comment("ping")

Encoder = Callable[[str, BusEvent], bytes]
StillRunning = Callable[[str], Awaitable[bool]]


async def _never(_run_id: str) -> bool:
    return False


def encode_single(_run_id: str, event: BusEvent) -> bytes:
    return encode_sse(event)


def encode_tagged(run_id: str, event: BusEvent) -> bytes:
    return sse.frame(event.event, event.data_json(), f"{run_id}:{event.id}")


def sse_message(event: str, data: dict[str, Any]) -> bytes:
    return sse.encode(event, data)


class _Connection:
    """One client's response body: written by the run pumps, pinged and ended by its owner."""

    def __init__(self, send: Send, runs: int) -> None:
        self._send = send
        self.wrote = False  # since the last ping check
        self.open_runs = runs
        self.over = asyncio.Event()

    async def write(self, chunk: bytes) -> None:
        self.wrote = True
        await self._send({"type": "http.response.body", "body": chunk, "more_body": True})

    def run_ended(self) -> None:
        self.open_runs -= 1
        if self.open_runs <= 0:
            self.over.set()


async def _pump(
    bus: EventBus,
    run_id: str,
    last_id: int,
    out: _Connection,
    encode: Encoder,
    running: StillRunning,
) -> None:
    try:
        count = 0
        async for event in bus.subscribe(run_id, last_id):
            await out.write(encode(run_id, event))
            count += 1
            if count % YIELD_EVERY == 0:
                await asyncio.sleep(0)
    except UnknownRun:
        gone = "stream_interrupted" if await running(run_id) else "run_unknown"
        await out.write(sse_message(gone, {"runId": run_id}))
    except StreamInterrupted:
        await out.write(sse_message("stream_interrupted", {"runId": run_id}))
    finally:
        out.run_ended()


async def _until_disconnect(receive: Receive, out: _Connection) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    out.over.set()


async def _ping_until_over(out: _Connection) -> None:
    while not out.over.is_set():
        out.wrote = False
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(PING_S):
                await out.over.wait()
        if not out.over.is_set() and not out.wrote:
            await out.write(PING)


async def serve_runs(
    bus: EventBus,
    runs: list[tuple[str, int]],
    encode: Encoder,
    receive: Receive,
    send: Send,
    running: StillRunning = _never,
) -> None:
    """The body of a run stream, after its start: every run's events, then the end."""
    out = _Connection(send, len(runs))
    await out.write(CONNECTED)
    tasks = [asyncio.create_task(_pump(bus, r, last, out, encode, running)) for r, last in runs]
    tasks.append(asyncio.create_task(_until_disconnect(receive, out)))
    try:
        await _ping_until_over(out)
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    await send({"type": "http.response.body", "body": b"", "more_body": False})


class RunEventStream(Response):
    """`text/event-stream` of one or several runs (see the module's docstring)."""

    media_type = "text/event-stream"

    def __init__(
        self,
        bus: EventBus,
        runs: list[tuple[str, int]],
        encode: Encoder,
        running: StillRunning = _never,
    ) -> None:
        self.bus, self.runs, self.encode, self.running = bus, runs, encode, running
        self.status_code = 200
        self.background = None
        self.init_headers(SSE_HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        await serve_runs(self.bus, self.runs, self.encode, receive, send, self.running)


def run_stream(
    bus: EventBus, run_id: str, last_event_id: int, running: StillRunning = _never
) -> RunEventStream:
    return RunEventStream(bus, [(run_id, last_event_id)], encode_single, running)


def multi_run_stream(
    bus: EventBus, runs: list[tuple[str, int]], running: StillRunning = _never
) -> RunEventStream:
    return RunEventStream(bus, runs, encode_tagged, running)
