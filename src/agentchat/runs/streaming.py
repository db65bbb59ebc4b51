"""SSE responses for runs: one run (`Last-Event-ID` resume) or several runs on one connection.

A pump task per run moves bus events into a shared buffer; the response sends whatever has
gathered as one write (batching under load) and a comment ping when idle, so a slow client
costs its own buffer only and the bus drops it if it falls too far behind.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import StreamingResponse

from agentchat.events import sse
from agentchat.events.bus import EventBus
from agentchat.events.model import RunEvent, StreamInterrupted, UnknownRun, encode_sse

PING_S = 15.0
# Events a connection may hold for a client that does not read: past this the stream ends
# with `stream_interrupted` and the client resumes with Last-Event-ID.
MAX_BUFFERED = 10_000
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}

Encoder = Callable[[str, RunEvent], bytes]


def encode_single(_run_id: str, event: RunEvent) -> bytes:
    return encode_sse(event)


def encode_tagged(run_id: str, event: RunEvent) -> bytes:
    return sse.frame(event.event, event.data_json(), f"{run_id}:{event.id}")


def sse_message(event: str, data: dict[str, Any]) -> bytes:
    return sse.encode(event, data)


class _Gather:
    """Where the pumps of one connection put encoded events."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.wake = asyncio.Event()
        self.open_runs = 0

    def put(self, chunk: bytes) -> None:
        self.chunks.append(chunk)
        self.wake.set()


async def _pump(bus: EventBus, run_id: str, last_id: int, gather: _Gather, encode: Encoder) -> None:
    try:
        count = 0
        async for event in bus.subscribe(run_id, last_id):
            if len(gather.chunks) >= MAX_BUFFERED:
                gather.put(sse_message("stream_interrupted", {"runId": run_id}))
                return
            gather.put(encode(run_id, event))
            count += 1
            if count % 200 == 0:
                await asyncio.sleep(0)
    except UnknownRun:
        gather.put(sse_message("run_unknown", {"runId": run_id}))
    except StreamInterrupted:
        gather.put(sse_message("stream_interrupted", {"runId": run_id}))
    finally:
        gather.open_runs -= 1
        gather.wake.set()


async def _body(
    bus: EventBus, runs: list[tuple[str, int]], encode: Encoder
) -> AsyncIterator[bytes]:
    gather = _Gather()
    gather.open_runs = len(runs)
    pumps = [asyncio.create_task(_pump(bus, r, last, gather, encode)) for r, last in runs]
    try:
        yield sse.comment("connected")
        while True:
            if not gather.chunks:
                if gather.open_runs <= 0:
                    return
                gather.wake.clear()
                try:  # asyncio.timeout, not wait_for: no task per wait
                    async with asyncio.timeout(PING_S):
                        await gather.wake.wait()
                except TimeoutError:
                    yield sse.comment("ping")
                    continue
            chunks, gather.chunks = gather.chunks, []
            yield b"".join(chunks)
    finally:
        for pump in pumps:
            pump.cancel()
        for pump in pumps:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump


def run_stream(bus: EventBus, run_id: str, last_event_id: int) -> StreamingResponse:
    return StreamingResponse(
        _body(bus, [(run_id, last_event_id)], encode_single),
        media_type="text/event-stream",
        headers=SSE_HEADERS,
    )


def multi_run_stream(bus: EventBus, runs: list[tuple[str, int]]) -> StreamingResponse:
    return StreamingResponse(
        _body(bus, runs, encode_tagged), media_type="text/event-stream", headers=SSE_HEADERS
    )
