"""A stand-in Hermes Bridge for load that one hermes process cannot produce: it speaks the
bridge SSE protocol of docs/contracts.md and streams synthetic answer tokens, paced on an
absolute schedule and coalesced by the bridge's own outbox (`agentchat.bridge.outbox`), as
the real bridge sends them.

Each token is ` tN@NS`: its number and the monotonic ns when it was made (the "model" send
time), so a reader measures model → client per token from the text alone, however the tokens
were joined into events and whichever API process streamed them.

The user message `#fake COUNT RATE [WINDOW_MS]` asks for COUNT tokens at RATE per second (0 =
at once), coalesced over WINDOW_MS (default: the bridge's, 15; 0 = one event per token). A
line `#fake-together NAME N` holds the tokens until N turns named NAME have reached this
bridge, then starts them all 0.2 s later: the load is then N runs streaming at once, with
the run starts (100 POST /runs take seconds) before it, not inside it.
Run: python bench/fake_bridge.py PORT
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from agentchat.bridge.outbox import DEFAULT_WINDOW_S, Outbox
from agentchat.events.contract import AnswerDelta, RunEnd
from agentchat.events.sse import KEEPALIVE, encode_event

KEEPALIVE_S = 10.0


START_DELAY_S = 0.2
_groups: dict[str, tuple[asyncio.Event, list[int]]] = {}


def together(message: str) -> tuple[str, int] | None:
    for line in message.splitlines():
        parts = line.split()
        if parts[:1] == ["#fake-together"] and len(parts) == 3:
            return parts[1], int(parts[2])
    return None


async def wait_for_group(name: str, size: int) -> None:
    """Return START_DELAY_S after the `size`-th turn of the group arrived."""
    ready, arrived = _groups.setdefault(name, (asyncio.Event(), [0]))
    arrived[0] += 1
    if arrived[0] >= size:
        ready.set()
    await ready.wait()
    await asyncio.sleep(START_DELAY_S)


def plan(message: str) -> tuple[int, float, float]:
    for line in message.splitlines():
        parts = line.split()
        if parts[:1] == ["#fake"] and len(parts) in (3, 4):
            window = float(parts[3]) / 1000 if len(parts) == 4 else DEFAULT_WINDOW_S
            return int(parts[1]), float(parts[2]), window
    return 10, 0.0, DEFAULT_WINDOW_S


async def _produce(outbox: Outbox, count: int, rate: float, group: tuple[str, int] | None) -> None:
    if group is not None:
        await wait_for_group(*group)
    start = time.monotonic()
    pieces = []
    for n in range(1, count + 1):
        if rate > 0:
            await asyncio.sleep(max(0.0, start + n / rate - time.monotonic()))
        piece = f" t{n}@{time.monotonic_ns()}"
        pieces.append(piece)
        outbox.put(AnswerDelta(content=piece))
        if rate <= 0 and n % 100 == 0:
            await asyncio.sleep(0)
    text = "".join(pieces)
    messages = [{"role": "assistant", "content": text}]
    outbox.close(RunEnd(status="success", final_text=text, messages=messages))


async def _stream(
    count: int, rate: float, window_s: float, group: tuple[str, int] | None
) -> AsyncIterator[bytes]:
    outbox = Outbox(asyncio.get_running_loop(), window_s=window_s)
    producer = asyncio.create_task(_produce(outbox, count, rate, group))
    event_id = 0
    try:
        while (batch := await outbox.take(KEEPALIVE_S)) is not None:
            frames = []
            for event in batch:
                event_id += 1
                frames.append(encode_event(event, event_id))
            yield b"".join(frames) or KEEPALIVE  # while a group gathers: the API's read timeout
    finally:
        producer.cancel()


async def run(request: Request) -> StreamingResponse:
    body = await request.json()
    message = str(body.get("userMessage", ""))
    count, rate, window_s = plan(message)
    stream = _stream(count, rate, window_s, together(message))
    return StreamingResponse(stream, media_type="text/event-stream")


async def ok(_request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


async def health(_request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok", "agents": 0, "poolSize": 0, "activeRuns": 0})


app = Starlette(
    routes=[
        Route("/run", run, methods=["POST"]),
        Route("/runs/{run_id}/abort", ok, methods=["POST"]),
        Route("/runs/{run_id}/clarify", ok, methods=["POST"]),
        Route("/sessions/{session_id}/reset", ok, methods=["POST"]),
        Route("/health", health),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
