"""A bridge `serve` started outlives its API, but not for ever: the API pings it every few
seconds, and a bridge that hears from no API for `orphan_s` ends its turns (hermes interrupt;
the runs end) and exits 0. Any authenticated request counts as hearing from the API."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from agentchat.bridge.live.registry import RunRegistry

log = logging.getLogger(__name__)
TURNS_END_TIMEOUT_S = 10.0


class Liveness:
    """When an API was last heard from (monotonic seconds)."""

    def __init__(self) -> None:
        self._last = time.monotonic()

    def touch(self) -> None:
        self._last = time.monotonic()

    def idle_s(self) -> float:
        return time.monotonic() - self._last


async def exit_when_orphaned(
    liveness: Liveness, runs: RunRegistry, orphan_s: float, stop: Callable[[], None]
) -> None:
    """Wait until no API was heard from for `orphan_s`, end the turns, then `stop` the server."""
    check_s = min(1.0, orphan_s / 4)
    while liveness.idle_s() < orphan_s:
        await asyncio.sleep(check_s)
    handles = runs.all()
    log.warning("no API for %.0f s: ending %d turn(s) and exiting", liveness.idle_s(), len(handles))
    for handle in handles:
        handle.abort()
    deadline = time.monotonic() + TURNS_END_TIMEOUT_S
    while any(not h.finished for h in runs.all()) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    stop()
