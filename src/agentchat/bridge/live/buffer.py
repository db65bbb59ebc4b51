"""Each run's events with their ids, kept apart from any client: the turn goes on when a
client goes away, and a client that comes back (`GET /runs/{id}/events?after=N`) reads what
it missed byte for byte, then the live tail.

Ids are 1, 2, 3… per run, given after answer coalescing (`outbox.py`), and each event is
encoded once: a replay sends exactly the bytes the first reader got. An ended run's buffer
goes once the API released it (`DELETE /runs/{id}`: it stored the end), or after the
retention time (a day by default: long enough for an API that died to come back). Not when a
client has read its end: an API that read it and died before storing it would come back to a
run nobody holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Literal

from agentchat.protocol.events import BridgeEvent, RunEnd
from agentchat.protocol.sse import KEEPALIVE, encode_event

RunState = Literal["running", "waiting", "ended"]


class RunBuffer:
    """One run's encoded events (appended on the loop), read by any number of clients."""

    def __init__(self, run_id: str, session_id: str, clock: Callable[[], float]) -> None:
        self.run_id = run_id
        self.session_id = session_id
        self._clock = clock
        self._frames: list[bytes] = []
        self._wake = asyncio.Event()
        self.ended_at: float | None = None
        self.released = False

    @property
    def last_event_id(self) -> int:
        return len(self._frames)

    def state(self, waiting: bool) -> RunState:
        """`waiting`: a clarify question of the run waits for the person's answer."""
        if self.ended_at is not None:
            return "ended"
        return "waiting" if waiting else "running"

    def append(self, event: BridgeEvent) -> None:
        self._frames.append(encode_event(event, len(self._frames) + 1))
        if isinstance(event, RunEnd):
            self.ended_at = self._clock()
        wake, self._wake = self._wake, asyncio.Event()
        wake.set()

    async def read(self, after: int, keepalive_s: float) -> AsyncIterator[bytes]:
        """The frames after id `after` (what gathered meanwhile in one chunk), then live ones,
        a keep-alive comment every `keepalive_s` of silence; ends after `run_end`."""
        sent = max(after, 0)
        while True:
            wake = self._wake
            if sent < len(self._frames):
                chunk, sent = b"".join(self._frames[sent:]), len(self._frames)
                yield chunk
                continue
            if self.ended_at is not None:
                return
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(keepalive_s):
                    await wake.wait()
                continue
            yield KEEPALIVE


class RunBuffers:
    """The buffers the bridge holds, by run id; ended ones are dropped lazily."""

    def __init__(self, retention_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._retention_s = retention_s
        self._clock = clock
        self._buffers: dict[str, RunBuffer] = {}

    def open(self, run_id: str, session_id: str) -> RunBuffer:
        self.prune()
        buffer = RunBuffer(run_id, session_id, self._clock)
        self._buffers[run_id] = buffer
        return buffer

    def get(self, run_id: str) -> RunBuffer | None:
        self.prune()
        return self._buffers.get(run_id)

    def release(self, run_id: str) -> None:
        """The API stored the run's end: its buffer goes once the run has ended."""
        buffer = self._buffers.get(run_id)
        if buffer is not None:
            buffer.released = True
        self.prune()

    def all(self) -> list[RunBuffer]:
        self.prune()
        return list(self._buffers.values())

    def prune(self) -> None:
        now = self._clock()
        for run_id, buffer in list(self._buffers.items()):
            ended = buffer.ended_at
            if ended is not None and (buffer.released or now - ended >= self._retention_s):
                del self._buffers[run_id]
