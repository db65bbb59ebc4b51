"""A turn whose model has gone silent ends in bounded time, whatever hermes retries.

hermes gives a silent model one request timeout per attempt, then reconnects (stream
retries), asks for a continuation (up to 4 times after a partial answer) or retries the call:
measured with the default 300 s timeout, a model that sent its headers and then nothing kept a
person waiting 15 minutes, one that stalled after some text 20. The watch counts the time
since the model last produced something (answer, reasoning, a tool call), not while a tool runs
or a question waits for the person; past the limit it interrupts the agent once, and the turn
ends FAILED with the text so far. hermes' own request timeout is set past the limit
(`BridgeSettings.hermes_request_timeout_s`): were it first, a stall after some text would
become a continuation request, and a model that replays its text would restart the clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# hermes callbacks that carry the model's own output, and those around a tool's run
_OUTPUT = frozenset({"on_stream_delta", "on_reasoning", "on_interim"})
_TOOL_START, _TOOL_END = "on_tool_start", "on_tool_complete"
_CHECK_S = 0.25


def gave_up_error(limit_s: float) -> str:
    """The failure the page shows ("timed out" is what it reads as the model being slow)."""
    return (
        f"The model timed out: it sent nothing for {limit_s:g} s, retries included. "
        "The text so far is kept."
    )


class SilenceWatch:
    """Thread-safe: fed by hermes' callbacks (any thread), checked by its own thread."""

    def __init__(self, limit_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit_s = limit_s
        self._clock = clock
        self._lock = threading.Lock()
        self._last = clock()
        self._tools = 0
        self.gave_up = False

    def saw(self, callback: str) -> None:
        """A hermes callback fired (its translator method name)."""
        with self._lock:
            if callback == _TOOL_START:
                self._tools += 1
            elif callback == _TOOL_END:
                self._tools = max(self._tools - 1, 0)
            elif callback not in _OUTPUT:
                return
            self._last = self._clock()

    def start(self) -> None:
        """The turn starts: the time spent preparing it (a first agent, MCP servers) is not
        the model's silence."""
        with self._lock:
            self._last = self._clock()

    def silent_s(self) -> float:
        """Seconds the model has been silent while the agent waits on it (0 while a tool runs)."""
        with self._lock:
            return 0.0 if self._tools else self._clock() - self._last

    def overdue(self) -> bool:
        return self.silent_s() > self.limit_s


@contextmanager
def watching(watch: SilenceWatch, interrupt: Callable[[], None]) -> Iterator[SilenceWatch]:
    """Check `watch` on a thread of its own while the block runs; past its limit mark it given
    up and call `interrupt` (once)."""
    done = threading.Event()
    watch.start()

    def check() -> None:
        while not done.wait(_CHECK_S):
            if watch.overdue():
                watch.gave_up = True
                interrupt()
                return

    thread = threading.Thread(target=check, name="bridge-silence", daemon=True)
    thread.start()
    try:
        yield watch
    finally:
        done.set()
        thread.join(timeout=1)
