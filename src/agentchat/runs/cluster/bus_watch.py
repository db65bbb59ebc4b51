"""Whether the event bus answers, as the run service must know it: a Redis that stalls or
restarts may hold up streams, never end a run. A PING every second (and any call that failed
or took too long) tells it. Drivers wait on it to put their runs back on the bus; the sweeper
judges other processes' runs only once it has answered long enough for every live owner to
have renewed its keys."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable

PROBE_S = 1.0
PROBE_TIMEOUT_S = 5.0  # a backstop: the ping's own client gives up sooner
# A call slower than this counts as a stall: the keys it read may have expired meanwhile.
SLOW_S = 2.0
POLL_S = 0.2


class BusWatch:
    def __init__(
        self,
        ping: Callable[[], Awaitable[object]],
        *,
        slow_s: float = SLOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ping = ping
        self._slow_s = slow_s
        self._clock = clock
        self._down = False
        self._steady_since = -math.inf  # the bus answered when `serve` started
        self._probing_since: float | None = None
        self._probed_at = -math.inf

    def failed(self) -> None:
        """A call to the bus failed or took too long: it is away until a probe answers."""
        self._down = True

    def timed(self, started: float) -> bool:
        """Whether a call that began at `started` (this clock) answered in time; a slow one
        counts as a failure."""
        if self._clock() - started > self._slow_s:
            self.failed()
            return False
        return True

    def now(self) -> float:
        return self._clock()

    async def probe(self) -> None:
        """One PING (the periodic task calls this every PROBE_S)."""
        started = self._probing_since = self._probed_at = self._clock()
        try:
            async with asyncio.timeout(PROBE_TIMEOUT_S):
                await self._ping()
        except Exception:
            self.failed()
            return
        finally:
            self._probing_since = None
        if self.timed(started) and self._down:
            self._down = False
            self._steady_since = self._clock()

    def answering(self) -> bool:
        probing = self._probing_since
        stuck = probing is not None and self._clock() - probing > self._slow_s
        return not self._down and not stuck

    def steady_for(self, seconds: float) -> bool:
        """The bus has answered every call for at least `seconds`."""
        return self.answering() and self._clock() - self._steady_since >= seconds

    async def wait_answering(self) -> None:
        """Return once a probe has answered since the last failure (probing when the periodic
        probe is late or not running)."""
        while not self.answering():
            idle = self._probing_since is None and self._clock() - self._probed_at >= PROBE_S
            if idle:
                await self.probe()
            else:
                await asyncio.sleep(POLL_S)
