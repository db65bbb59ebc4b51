"""Runs without a live owner whose bridge this process cannot ask (each `serve` with its own
local bridge, or bridge lists that differ): it cannot tell whether the bridge still holds them,
so it leaves them to their owner (which may only have lost Redis, or be coming back to its
bridge) for as long as a bridge keeps a turn with no API (`AGENTCHAT_BRIDGE_ORPHAN_S`, then it
ends its turns), counted again whenever the stored answer grows (someone still drives it)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)


class Elsewhere:
    def __init__(self, grace_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.grace_s = grace_s
        self._clock = clock
        self._since: dict[str, tuple[float, int]] = {}  # run -> (left since, stored progress)

    def given_up(self, progress: dict[str, int], bridges: dict[str, str]) -> list[str]:
        """Of these runs (run id -> the bridge event id their stored answer reaches), those
        left alone for the whole grace without their stored answer growing."""
        now, expired = self._clock(), []
        for run_id, reached in progress.items():
            since, seen = self._since.get(run_id, (now, reached))
            if run_id not in self._since:
                where = bridges.get(run_id, "a bridge not recorded")
                log.warning(
                    "run %s has no live owner and is on %s, which this process does not reach: "
                    "left to its owner for up to %.0f s",
                    run_id,
                    where,
                    self.grace_s,
                )
            if reached != seen:
                since = now
            self._since[run_id] = (since, reached)
            if now - since >= self.grace_s:
                expired.append(run_id)
        return expired

    def keep(self, left: Iterable[str]) -> None:
        """Forget the runs not left alone in this round (ended, or owned again)."""
        still = set(left)
        for run_id in [r for r in self._since if r not in still]:
            del self._since[run_id]
