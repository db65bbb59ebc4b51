"""One run's events on their way from the hermes thread to the SSE response, answer tokens
coalesced.

A fast model calls back once per token; sending each as its own event costs a loop wake-up, a
socket write and the API's whole per-event path. The outbox sends at most one `answer_delta`
per `window_s` (a throttle, not a delay): a token that comes a window or more after the last
delta left goes at once, later ones gather until a window after it (or until `max_chars`).
So a model slower than one token per window streams token by token with no added latency,
and a fast one as a few large deltas. Any other event closes the pending delta first, so the
order of the stream never changes.
The producer thread wakes the loop once per batch, not once per token.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable

from agentchat.protocol.events import AnswerDelta, BridgeEvent, RunEnd

DEFAULT_WINDOW_S = 0.015
DEFAULT_MAX_CHARS = 400


class Outbox:
    """Thread-safe `put` (any thread), `take` on the event loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        *,
        window_s: float = DEFAULT_WINDOW_S,
        max_chars: int = DEFAULT_MAX_CHARS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._loop = loop
        self._window_s = window_s
        self._max_chars = max_chars
        self._clock = clock
        self._lock = threading.Lock()
        self._ready: list[BridgeEvent] = []
        self._pieces: list[str] = []  # the pending delta, always after `_ready`
        self._chars = 0
        self._since = 0.0
        self._last_delta = -float("inf")  # when the last answer delta was sealed
        self._closed = False
        self._wake = asyncio.Event()
        self._signalled = False

    def put(self, event: BridgeEvent) -> None:
        """Queue one event (answer deltas join the pending one)."""
        with self._lock:
            if self._closed:
                return
            if isinstance(event, AnswerDelta) and _joinable(event):
                wake = self._add_piece(event.content)
            else:
                self._seal()
                self._ready.append(event)
                wake = True
            if wake and not self._signalled:
                self._signalled = True
            else:
                return
        self._signal()

    def close(self, end: RunEnd) -> None:
        """The last event: what is pending goes first, nothing is accepted after it."""
        with self._lock:
            self._seal()
            self._ready.append(end)
            self._closed = True
            self._signalled = True
        self._signal()

    async def take(self, timeout: float) -> list[BridgeEvent] | None:
        """What is ready (a due delta included), [] after `timeout` s with nothing to send,
        None once the closing event has been taken."""
        deadline = self._clock() + timeout
        while True:
            with self._lock:
                now = self._clock()
                if self._pieces and (self._closed or self._due(now)):
                    self._seal()
                batch, self._ready = self._ready, []
                ended = self._closed and not batch
                until = self._due_at() if self._pieces else deadline
                self._signalled = False
                self._wake.clear()
            if batch:
                return batch
            if ended:
                return None
            if now >= until:
                return []
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(until - now):
                    await self._wake.wait()

    # ── inside the lock ────────────────────────────────────────────────────────────
    def _add_piece(self, text: str) -> bool:
        """True when the consumer must look now (a first piece to time, or a full delta)."""
        first = not self._pieces
        if first:
            self._since = self._clock()
        self._pieces.append(text)
        self._chars += len(text)
        if self._chars >= self._max_chars:
            self._seal()
            return True
        return first

    def _due_at(self) -> float:
        return max(self._since, self._last_delta + self._window_s)

    def _due(self, now: float) -> bool:
        return now >= self._due_at()

    def _seal(self) -> None:
        if self._pieces:
            self._ready.append(AnswerDelta(content="".join(self._pieces)))
            self._pieces, self._chars = [], 0
            self._last_delta = self._clock()

    # ── wake-up ─────────────────────────────────────────────────────────────────────
    def _signal(self) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody reads any more
            self._loop.call_soon_threadsafe(self._wake.set)


def _joinable(event: AnswerDelta) -> bool:
    """A plain answer delta (one carrying extra fields keeps them, alone)."""
    return type(event) is AnswerDelta and not event.model_extra
