"""A job run on a thread of its own shortly after it was asked for: once for a burst of
requests (a person deleting chats one after another), never on the request's thread."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

QUIET_S = 1.0  # run once requests have stopped for this long…
LATEST_S = 10.0  # …or this long after the first one, whichever comes first
RETRY_S = 5.0
RETRIES = 12


class Scrubber:
    """Runs `job` (True: done; False: try again in RETRY_S, up to RETRIES times) after
    `request()`; `close()` runs a job still due, then stops."""

    def __init__(self, job: Callable[[], bool], quiet_s: float = QUIET_S) -> None:
        self._job = job
        self._quiet_s = quiet_s
        self._wake = threading.Condition()
        self._first: float | None = None  # monotonic time of the first request not yet served
        self._last = 0.0
        self._closed = False
        self._thread: threading.Thread | None = None

    def request(self) -> None:
        with self._wake:
            if self._closed:
                return
            if self._thread is None:  # started on first use: most processes never delete
                self._thread = threading.Thread(target=self._loop, name="scrub", daemon=True)
                self._thread.start()
            now = time.monotonic()
            self._first = self._first if self._first is not None else now
            self._last = now
            self._wake.notify()

    def close(self) -> None:
        with self._wake:
            self._closed = True
            self._wake.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=30)

    def _loop(self) -> None:
        while self._due():
            self._run()

    def _due(self) -> bool:
        """Wait until a job is due (True) or the scrubber closed with none pending (False)."""
        with self._wake:
            while True:
                if self._first is not None:
                    now = time.monotonic()
                    ready = min(self._last + self._quiet_s, self._first + LATEST_S)
                    if self._closed or now >= ready:
                        self._first = None
                        return True
                    self._wake.wait(ready - now)
                elif self._closed:
                    return False
                else:
                    self._wake.wait()

    def _run(self) -> None:
        for attempt in range(RETRIES + 1):
            try:
                if self._job():
                    return
            except Exception:
                log.exception("database upkeep failed (tried again on the next deletion)")
                return
            if self._closed or attempt == RETRIES:
                return
            with self._wake:
                self._wake.wait_for(lambda: self._closed, timeout=RETRY_S)
