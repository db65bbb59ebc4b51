"""A background task that calls an async function every few seconds until closed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


class Periodic:
    """`work()` now (when `at_once`) and then every `every_s` seconds; an error is logged and
    the next round still comes."""

    def __init__(
        self,
        work: Callable[[], Awaitable[Any]],
        every_s: float,
        name: str,
        *,
        at_once: bool = False,
    ) -> None:
        self._work = work
        self._every_s = every_s
        self._name = name
        self._at_once = at_once
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name=self._name)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        if self._at_once:
            await self._round()
        while True:
            await asyncio.sleep(self._every_s)
            await self._round()

    async def _round(self) -> None:
        try:
            await self._work()
        except Exception:
            log.exception("%s failed; trying again in %.0f s", self._name, self._every_s)
