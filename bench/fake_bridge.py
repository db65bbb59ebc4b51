"""A stand-in Hermes Bridge for load that one hermes process cannot produce: it speaks the
bridge SSE protocol of docs/contracts.md and streams synthetic `answer_delta` events, each with
`meta.sentNs` (monotonic ns when it was written), paced on an absolute schedule.

The user message `#fake COUNT RATE` asks for COUNT deltas at RATE per second (0 = at once).
Run: python bench/fake_bridge.py PORT
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from agentchat.events.sse import encode


def plan(message: str) -> tuple[int, float]:
    for line in message.splitlines():
        parts = line.split()
        if parts[:1] == ["#fake"] and len(parts) == 3:
            return int(parts[1]), float(parts[2])
    return 10, 0.0


def _event(name: str, data: dict[str, Any]) -> bytes:
    return encode(name, data)


async def _stream(count: int, rate: float) -> AsyncIterator[bytes]:
    start = time.monotonic()
    pieces = []
    for n in range(1, count + 1):
        if rate > 0:
            await asyncio.sleep(max(0.0, start + n / rate - time.monotonic()))
        piece = f" t{n}"
        pieces.append(piece)
        data = {"kind": "answer_delta", "content": piece, "meta": {"sentNs": time.monotonic_ns()}}
        yield _event("node_stream", data)
        if rate <= 0 and n % 100 == 0:
            await asyncio.sleep(0)
    text = "".join(pieces)
    end = {
        "status": "success",
        "finalText": text,
        "error": None,
        "usage": {},
        "messages": [{"role": "assistant", "content": text}],
        "compacted": False,
    }
    yield _event("run_end", end)


async def run(request: Request) -> StreamingResponse:
    body = await request.json()
    count, rate = plan(str(body.get("userMessage", "")))
    return StreamingResponse(_stream(count, rate), media_type="text/event-stream")


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
