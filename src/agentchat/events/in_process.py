"""The in-process event bus: per-run history in memory, kept a while after the run ends."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from agentchat.events.model import BusEvent, RunFinished, UnknownRun, check_terminal_last
from agentchat.events.subscription import DEFAULT_QUEUE_SIZE, Subscription, follow

REPLAY_YIELD_EVERY = 100


@dataclass(eq=False)
class _Run:
    run_id: str
    meta: dict[str, Any]
    history: list[BusEvent] = field(default_factory=list)
    subscribers: set[Subscription] = field(default_factory=set)
    finished: bool = False


def _past_the_end(run: _Run, after: int) -> list[BusEvent]:
    """A finished run's terminal event for a resume from past its end, else nothing."""
    if not run.finished or not run.history:
        return []
    last = run.history[-1]
    return [last] if last.is_terminal and after > last.id else []


class InProcessEventBus:
    """Publishing never awaits: it appends to the history and offers to each subscriber."""

    def __init__(
        self,
        *,
        retention_s: float = 3600.0,
        max_finished_runs: int = 1000,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._runs: dict[str, _Run] = {}
        self._finished: OrderedDict[str, float] = OrderedDict()
        self._retention_s = retention_s
        self._max_finished = max_finished_runs
        self._queue_size = queue_size
        self._clock = clock

    async def register(self, run_id: str, meta: dict[str, Any]) -> None:
        self._prune()
        run = self._runs.get(run_id)
        if run is None:
            self._runs[run_id] = _Run(run_id, dict(meta))
        else:
            run.meta = dict(meta)

    async def publish(self, run_id: str, event: str, data: dict[str, Any]) -> BusEvent:
        return self._append(self._open_run(run_id), event, data)

    async def publish_many(
        self, run_id: str, items: list[tuple[str, dict[str, Any]]]
    ) -> list[BusEvent]:
        run = self._open_run(run_id)
        check_terminal_last(items)
        return [self._append(run, event, data) for event, data in items]

    def subscribe(self, run_id: str, last_event_id: int = 0) -> AsyncIterator[BusEvent]:
        return self._subscribe(run_id, max(last_event_id, 0))

    async def history(self, run_id: str, after: int = 0) -> list[BusEvent]:
        return self._known_run(run_id).history[max(after, 0) :]

    async def is_known(self, run_id: str) -> bool:
        self._prune()
        return run_id in self._runs

    async def meta(self, run_id: str) -> dict[str, Any] | None:
        self._prune()
        run = self._runs.get(run_id)
        return None if run is None else dict(run.meta)

    async def finish(self, run_id: str) -> None:
        run = self._runs.get(run_id)
        if run is not None and not run.finished:
            self._mark_finished(run)

    async def close(self) -> None:
        for run in self._runs.values():
            for sub in run.subscribers:
                sub.interrupt()
            run.subscribers.clear()

    async def ping(self) -> None:
        """In-process: always there."""

    def subscriber_count(self, run_id: str) -> int:
        run = self._runs.get(run_id)
        return 0 if run is None else len(run.subscribers)

    async def _subscribe(self, run_id: str, after: int) -> AsyncIterator[BusEvent]:
        run = self._known_run(run_id)
        sub = Subscription(self._queue_size)
        if run.finished:
            sub.end()
        else:
            run.subscribers.add(sub)
        # No await between registering and taking the replay: nothing falls in between.
        replay = run.history[after:] or _past_the_end(run, after)
        try:
            for n, event in enumerate(replay, 1):
                sub.check()
                yield event
                if event.is_terminal:
                    return
                if n % REPLAY_YIELD_EVERY == 0:
                    await asyncio.sleep(0)
            async for event in follow(sub, replay[-1].id if replay else after):
                yield event
        finally:
            run.subscribers.discard(sub)

    def _append(self, run: _Run, event: str, data: dict[str, Any]) -> BusEvent:
        if run.finished:
            raise RunFinished("the run has already finished")
        item = BusEvent(len(run.history) + 1, event, data)
        run.history.append(item)
        lagging = [sub for sub in run.subscribers if not sub.offer(item)]
        run.subscribers.difference_update(lagging)
        if item.is_terminal:
            self._mark_finished(run)
        return item

    def _mark_finished(self, run: _Run) -> None:
        run.finished = True
        for sub in run.subscribers:
            sub.end()
        run.subscribers.clear()
        self._finished[run.run_id] = self._clock()
        self._prune()

    def _prune(self) -> None:
        deadline = self._clock() - self._retention_s
        while self._finished:
            run_id, finished_at = next(iter(self._finished.items()))
            if finished_at > deadline and len(self._finished) <= self._max_finished:
                break
            del self._finished[run_id]
            self._runs.pop(run_id, None)

    def _known_run(self, run_id: str) -> _Run:
        self._prune()
        run = self._runs.get(run_id)
        if run is None:
            raise UnknownRun(run_id)
        return run

    def _open_run(self, run_id: str) -> _Run:
        run = self._runs.get(run_id)
        if run is None:
            raise UnknownRun(run_id)
        return run
