"""The grace a stop gives runs in flight, counted once, from the signal.

On SIGTERM uvicorn first waits up to `timeout_graceful_shutdown` (the grace) for open
connections, and a run's stream stays open while the run goes on; only then does the lifespan
shut the runs down. Counting the runs' grace from there made a stop take twice what the operator
set. The deadline starts when the signal arrives; the lifespan waits only for what is left.
"""

from __future__ import annotations

import signal
import threading
import time
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class ShutdownDeadline:
    def __init__(self, grace_s: float) -> None:
        self.grace_s = grace_s
        self._signalled_at: float | None = None

    def watch_signals(self) -> None:
        """Note the first stop signal, then hand it to the handler in place (uvicorn's, which
        puts its own back when it exits). Signal handlers can only be set on the main thread;
        elsewhere (an app run in a test's thread) the grace counts from the lifespan's end."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in STOP_SIGNALS:
            previous = signal.getsignal(sig)
            if callable(previous):
                signal.signal(sig, self._noting(previous))

    def _noting(self, previous: Any) -> Any:
        def handler(sig: int, frame: FrameType | None) -> None:
            if self._signalled_at is None:
                self._signalled_at = time.monotonic()
            previous(sig, frame)

        return handler

    def remaining(self) -> float:
        """Seconds of the grace left now (all of it when no signal was noted)."""
        if self._signalled_at is None:
            return self.grace_s
        return max(0.0, self.grace_s - (time.monotonic() - self._signalled_at))
