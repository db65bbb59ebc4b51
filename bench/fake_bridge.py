"""A stand-in Hermes Bridge for load that one hermes process cannot produce: it speaks the
bridge SSE protocol of docs/contracts.md and streams synthetic answer tokens, paced on an
absolute schedule and coalesced by the rule of the bridge's outbox (`agentchat.bridge.live.outbox`:
a delta goes at once unless one left less than WINDOW_MS ago; later pieces wait for the window
or for 400 characters), as the real bridge sends them.

Each token is ` tN@NS`: its number and the monotonic ns when it was made (the "model" send
time), so a reader measures model → client per token from the text alone, however the tokens
were joined into events and whichever API process streamed them.

The user message `#fake COUNT RATE [WINDOW_MS]` asks for COUNT tokens at RATE per second (0 =
at once), coalesced over WINDOW_MS (default: the bridge's, 15; 0 = one event per token). A
line `#fake-together NAME N` holds the tokens until N turns named NAME have reached this
bridge, then starts them all 0.2 s later: the load is then N runs streaming at once, with
the run starts (100 POST /runs take seconds) before it, not inside it. Each run of a group
then starts its schedule a random fraction of one token's interval later, as runs that started
at different times would be: `#fake-lockstep` instead makes every run send its n-th token at the
same instant (a burst of N events per interval, the worst case, which no set of real models
produces).

This is a load generator, so it must cost little of the cores it shares with the API: one
timer task makes every run's tokens and writes their frames straight to the connections (no
task, lock, queue or pydantic model per token). Run: python bench/fake_bridge.py PORT
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import json
import random
import sys
import time
from typing import Any

import uvicorn

from agentchat.bridge.live.outbox import DEFAULT_MAX_CHARS, DEFAULT_WINDOW_S
from agentchat.protocol.events import RunEnd
from agentchat.protocol.sse import KEEPALIVE, dump_json, encode_event, frame

KEEPALIVE_S = 10.0
TICK_S = 0.001
MAX_SLEEP_S = 0.005  # how late a run added while the timer sleeps may start
START_DELAY_S = 0.2
Send = Any
_groups: dict[str, tuple[asyncio.Event, list[int]]] = {}


def together(message: str) -> tuple[str, int] | None:
    for line in message.splitlines():
        parts = line.split()
        if parts[:1] == ["#fake-together"] and len(parts) == 3:
            return parts[1], int(parts[2])
    return None


def lockstep(message: str) -> bool:
    return any(line.strip() == "#fake-lockstep" for line in message.splitlines())


def plan(message: str) -> tuple[int, float, float]:
    for line in message.splitlines():
        parts = line.split()
        if parts[:1] == ["#fake"] and len(parts) in (3, 4):
            window = float(parts[3]) / 1000 if len(parts) == 4 else DEFAULT_WINDOW_S
            return int(parts[1]), float(parts[2]), window
    return 10, 0.0, DEFAULT_WINDOW_S


async def wait_for_group(name: str, size: int, send: Send) -> None:
    """Return START_DELAY_S after the `size`-th turn of the group arrived (keep-alive comments
    meanwhile: the API's read timeout)."""
    ready, arrived = _groups.setdefault(name, (asyncio.Event(), [0]))
    arrived[0] += 1
    if arrived[0] >= size:
        ready.set()
    while not ready.is_set():
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(KEEPALIVE_S):
                await ready.wait()
        if not ready.is_set():
            await send({"type": "http.response.body", "body": KEEPALIVE, "more_body": True})
    await asyncio.sleep(START_DELAY_S)


class Run:
    """One turn's tokens: when the next is due, and the delta the outbox rule holds back."""

    def __init__(self, send: Send, count: int, rate: float, window_s: float, start: float) -> None:
        self.send, self.count, self.rate, self.window_s = send, count, rate, window_s
        self.start, self.made, self.event_id = start, 0, 0
        self.pending: list[str] = []
        self.chars = 0
        self.last_sent = -float("inf")
        self.pieces: list[str] = []
        self.done = asyncio.Event()

    def token_due(self) -> float:
        return self.start + (self.made + 1) / self.rate if self.rate > 0 else self.start

    def next_due(self) -> float:
        due = self.token_due() if self.made < self.count else float("inf")
        if self.pending:
            due = min(due, self.last_sent + self.window_s)
        return due

    async def step(self, now: float) -> None:
        """Make the tokens due by `now`, send what the outbox rule lets go, end when all left."""
        while self.made < self.count and self.token_due() <= now:
            self.made += 1
            piece = f" t{self.made}@{time.monotonic_ns()}"
            self.pieces.append(piece)
            self.pending.append(piece)
            self.chars += len(piece)
            if self.chars >= DEFAULT_MAX_CHARS:
                await self._send_delta(now)
        if self.pending and now >= self.last_sent + self.window_s:
            await self._send_delta(now)
        if self.made >= self.count and not self.pending:
            await self._end()

    async def _send_delta(self, now: float) -> None:
        content = "".join(self.pending)
        self.pending, self.chars, self.last_sent = [], 0, now
        self.event_id += 1
        body = f'{{"content":{dump_json(content)},"kind":"answer_delta"}}'  # AnswerDelta's wire
        await self._write(frame("node_stream", body, self.event_id))

    async def _end(self) -> None:
        text = "".join(self.pieces)
        messages = [{"role": "assistant", "content": text}]
        self.event_id += 1
        end = RunEnd(status="SUCCESS", final_text=text, messages=messages)
        await self._write(encode_event(end, self.event_id))
        await self.send({"type": "http.response.body", "body": b"", "more_body": False})
        self.done.set()

    async def _write(self, chunk: bytes) -> None:
        await self.send({"type": "http.response.body", "body": chunk, "more_body": True})


class Ticker:
    """Every run's tokens on one timer: wakes when the earliest is due."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Run]] = []
        self._order = itertools.count()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def add(self, run: Run) -> None:
        heapq.heappush(self._heap, (run.next_due(), next(self._order), run))
        self._wake.set()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        """Tokens due within TICK_S are made together: one wake-up per TICK_S at most, not one
        per token (each token is stamped when it is made, so no latency hides in the tick)."""
        while True:
            now = time.monotonic()
            while self._heap and self._heap[0][0] <= now + TICK_S / 2:
                _, _, run = heapq.heappop(self._heap)
                await run.step(now + TICK_S / 2)
                if not run.done.is_set():
                    heapq.heappush(self._heap, (run.next_due(), next(self._order), run))
            if not self._heap:
                self._wake.clear()
                await self._wake.wait()
                continue
            wait = self._heap[0][0] - time.monotonic()
            await asyncio.sleep(min(max(wait, TICK_S), MAX_SLEEP_S))


ticker = Ticker()


async def run_turn(receive: Any, send: Send) -> None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    text = str(json.loads(body or b"{}").get("userMessage", ""))
    count, rate, window_s = plan(text)
    headers = [(b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    group = together(text)
    start = time.monotonic()
    if group is not None:
        await wait_for_group(*group, send)
        start = time.monotonic()
        if rate > 0 and not lockstep(text):
            start += random.random() / rate
    run = Run(send, count, rate, window_s, start)
    ticker.add(run)
    await run.done.wait()


async def reply(send: Send, status: int, data: dict[str, Any]) -> None:
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": dump_json(data).encode()})


async def app(scope: dict[str, Any], receive: Any, send: Send) -> None:
    if scope["type"] != "http":
        return
    method, path = scope["method"], scope["path"]
    if method == "POST" and path == "/run":
        await run_turn(receive, send)
    elif path == "/health":
        await reply(send, 200, {"status": "ok", "agents": 0, "poolSize": 0, "activeRuns": 0})
    elif (method == "POST" and path.endswith(("/abort", "/clarify", "/reset"))) or (
        method == "DELETE" and path.startswith("/runs/")
    ):
        await reply(send, 200, {"ok": True})
    else:
        await reply(send, 404, {"error": {"code": "not_found", "message": path}})


if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
