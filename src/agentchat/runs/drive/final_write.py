"""The end of a run reaches the database: retried now, and kept to be written again later.

A full disk or a lost database must not leave an answer RUNNING for ever (409 on its session,
a slot of the server's cap): the outcome stays here and `settle()` (the sweeper, every few
seconds) writes it once the database takes writes again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.runs import store
from agentchat.runs.ports import Bridge

log = logging.getLogger(__name__)

RETRY_DELAYS_S = (0.2, 0.5, 1.0)
RELEASE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Unsaved:
    message_id: int
    outcome: store.RunOutcome
    summary_message_id: int | None
    bridge: Bridge | None = None  # the run's bridge, told to let it go once the end is stored


Writer = Callable[[Unsaved], Awaitable[None]]


class FinalWrites:
    def __init__(self, write: Writer, delays: tuple[float, ...] = RETRY_DELAYS_S) -> None:
        self._write = write
        self._delays = delays
        self._unsaved: dict[str, Unsaved] = {}

    def __contains__(self, run_id: object) -> bool:
        return run_id in self._unsaved

    async def save(self, run_id: str, end: Unsaved) -> bool:
        """Write the end of the run, retrying a few times; False when it is kept for later."""
        for delay in (*self._delays, None):
            try:
                await self._write(end)
                return True
            except Exception as exc:
                if delay is None:
                    log.error("could not save the end of run %s (kept for later): %s", run_id, exc)
                    self._unsaved[run_id] = end
                    return False
                log.warning("could not save the end of run %s, retrying: %s", run_id, exc)
                await asyncio.sleep(delay)
        return False

    async def settle(self) -> dict[str, Unsaved]:
        """Write the kept ends that the database now takes; those written, by run id."""
        written: dict[str, Unsaved] = {}
        for run_id, end in list(self._unsaved.items()):
            try:
                await self._write(end)
            except Exception as exc:
                log.warning("the end of run %s still cannot be saved: %s", run_id, exc)
                continue
            self._unsaved.pop(run_id, None)
            written[run_id] = end
        return written


async def let_bridge_go(run_id: str, bridge: Bridge | None) -> None:
    """The end is stored: the bridge need not keep the run for a replay any more (until then
    it keeps it, so that a process dying before the end is stored can read it again; a bridge
    that does not answer keeps it its retention time)."""
    if bridge is None:
        return
    with contextlib.suppress(BridgeUnavailable, TimeoutError):
        async with asyncio.timeout(RELEASE_TIMEOUT_S):
            await bridge.release(run_id)
