"""Driving one run: call the session's bridge (moving to the next worker when one cannot be
reached), publish what it streams, store the end and publish exactly one terminal event.

An outage of the event bus ends no run: the driver keeps it, storing what its bridge streams
and publishing nothing, until the bus answers again; then it follows the run again from its
bridge's first event, which puts on the bus what it lacks (`reattach.open_on_bus`). A run
that ends meanwhile is stored at once and its events and end go on the bus once it is back."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from agentchat.attachments.sending import send_files
from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.events.redis_health import BUS_ERRORS
from agentchat.protocol.events import BridgeEvent, RunEnd
from agentchat.runs import store
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.drive import outcomes
from agentchat.runs.drive.final_write import Unsaved, let_bridge_go
from agentchat.runs.drive.publisher import BusLost, RunPublisher
from agentchat.runs.ports import Bridge
from agentchat.runs.recovery import reattach

log = logging.getLogger(__name__)
INTERRUPTED_ERROR = store.SHUTDOWN_ERROR
# A broken stream of a run that had begun is followed again from its last event this often.
FOLLOW_RETRIES = 3
FOLLOW_BACKOFF_S = 0.3
ABORT_TIMEOUT_S = 3.0

Call = Callable[[ActiveRun], Awaitable[RunEnd]]


class RunDriver:
    def __init__(self, ctx: RunContext, publisher: RunPublisher) -> None:
        self.ctx = ctx
        self.publisher = publisher
        self.follow_backoff_s = FOLLOW_BACKOFF_S

    async def drive(self, run: ActiveRun) -> None:
        """A new run: start its turn on the session's bridge."""
        await self._drive(run, self._call_bridges)

    async def drive_attached(self, run: ActiveRun, client: Bridge) -> None:
        """A run a bridge holds that nobody drives (the API restarted): follow it from its
        first event, replaying what is stored, and carry on as its first driver would."""
        await self.ctx.place(run, client)
        await self._drive(run, lambda r: self._through(client, r, client.follow(r.run_id, 0)))

    async def _drive(self, run: ActiveRun, call: Call) -> None:
        try:
            outcome = outcomes.from_result(run, await call(run))
        except BridgeUnavailable as exc:
            # followed again, but its bridge no longer has it, or is being replaced (the local
            # bridge stopped answering): the turn is gone with the old process
            if exc.code == "unknown_run" or self.ctx.runtime.bridge_status.restarting():
                outcome = outcomes.interrupted(run, store.BRIDGE_RESTARTED_ERROR)
            else:
                outcome = outcomes.failure(run, f"The agent service is unavailable: {exc}")
        except asyncio.CancelledError:
            if run.stop_requested:
                await self._finish(run, outcomes.stopped(run))
            elif run.detach:
                await self._detach(run)
            else:
                await self._abort(run)
                await self._finish(run, outcomes.interrupted(run, INTERRUPTED_ERROR))
            raise
        except Exception as exc:
            log.exception("run %s failed", run.run_id)
            outcome = outcomes.failure(run, f"The run failed: {exc}")
        await self._finish(run, outcome)

    async def _call_bridges(self, run: ActiveRun) -> RunEnd:
        """Run on the session's bridge; move to the next one when it cannot be reached (and
        remember it as down for a few seconds, so the next turns do not wait on it)."""
        error: BridgeUnavailable | None = None
        bridges = self.ctx.bridges
        request = run.request
        if request is None:
            raise RuntimeError(f"run {run.run_id} has no request to send (it was re-attached)")
        for client in bridges.candidates(run.plan.hermes_session):
            await self.ctx.place(run, client)
            try:
                await send_files(
                    client,
                    self.ctx.database,
                    run.plan.session_id,
                    request.session_id,
                    request.files,
                )
                result = await self._through(client, run, client.run(request))
            except BridgeUnavailable as exc:
                if run.events_seen or run.stop_requested or exc.status_code is not None:
                    raise
                bridges.mark_down(client.base_url)
                error = exc
                continue
            bridges.mark_up(client.base_url)
            return result
        assert error is not None
        raise error

    async def _through(
        self, client: Bridge, run: ActiveRun, events: AsyncGenerator[BridgeEvent, None]
    ) -> RunEnd:
        """`_stream`, through outages of the event bus."""
        while True:
            try:
                return await self._stream(client, run, events)
            except BusLost as exc:
                log.warning(
                    "run %s: %s; storing it from its bridge until the bus answers",
                    run.run_id,
                    exc,
                )
            end = await self._ride_out(client, run)
            if end is not None:
                return end
            events = client.follow(run.run_id, 0)  # back on the bus: replayed from the start

    async def _ride_out(self, client: Bridge, run: ActiveRun) -> RunEnd | None:
        """Store the run from its bridge, publishing nothing, until the bus answers; then
        register it there again (None: follow it from its first event). The run's end when
        it came first."""
        while True:
            following = asyncio.create_task(
                self._stream(client, run, client.follow(run.run_id, run.event_id))
            )
            answering = asyncio.create_task(self.ctx.bus_watch.wait_answering())
            try:
                await asyncio.wait({following, answering}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                await _cancel(following, answering)
            if following.done() and not following.cancelled():
                return following.result()
            if await self._rejoin(run):
                return None

    async def _rejoin(self, run: ActiveRun) -> bool:
        """Put the run back on the bus; False when the bus failed again."""
        try:
            await reattach.open_on_bus(self.ctx, run)
        except BUS_ERRORS as exc:
            log.warning("run %s: the event bus failed again (%r)", run.run_id, exc)
            self.ctx.bus_watch.failed()
            return False
        reattach.replay_from_start(run)
        log.info("run %s is back on the event bus at event %d", run.run_id, run.published_upto)
        return True

    async def _stream(
        self, client: Bridge, run: ActiveRun, events: AsyncGenerator[BridgeEvent, None]
    ) -> RunEnd:
        """Publish the turn's events as they come; its `RunEnd` says how it ended. The turn
        goes on in the bridge when the stream breaks: it is followed again from the last
        event handled (a few times, while the bridge answers)."""
        for attempt in range(FOLLOW_RETRIES + 1):
            try:
                return await self._consume(run, events)
            except BridgeUnavailable as exc:
                retry = run.event_id > 0 and exc.status_code is None and not run.stop_requested
                if not retry or attempt == FOLLOW_RETRIES:
                    raise
                log.warning(
                    "run %s: the bridge stream broke (%s); following again", run.run_id, exc
                )
                await asyncio.sleep(self.follow_backoff_s * (attempt + 1))
                events = client.follow(run.run_id, run.event_id)
        raise AssertionError("unreachable")

    async def _consume(self, run: ActiveRun, events: AsyncGenerator[BridgeEvent, None]) -> RunEnd:
        async with contextlib.aclosing(events) as stream:
            async for event in stream:
                if isinstance(event, RunEnd):
                    return event
                await self.publisher.on_event(run, event)
        raise BridgeUnavailable("the bridge stream ended without a run_end event")

    async def _abort(self, run: ActiveRun) -> None:
        """Closing the stream no longer stops a turn: a run cut here is aborted in its bridge."""
        if run.client is not None:
            with contextlib.suppress(BridgeUnavailable, TimeoutError):
                async with asyncio.timeout(ABORT_TIMEOUT_S):
                    await run.client.abort(run.run_id)

    async def _detach(self, run: ActiveRun) -> None:
        """Leave the run going in its bridge: its logs and text so far stored with the bridge
        event id they reach, its row RUNNING for the next API process to re-attach."""
        try:
            await self.ctx.log_writer.flush()
        finally:
            self.ctx.active.pop(run.run_id, None)
            await self.ctx.release(run.run_id)
        log.info("run %s left to its bridge at event %d", run.run_id, run.event_id)

    async def _finish(self, run: ActiveRun, outcome: store.RunOutcome) -> None:
        plan = run.plan
        outcome = outcomes.storable(run, outcome)
        saved, published = False, False
        try:
            await self.ctx.log_writer.flush()
            end = Unsaved(plan.message_id, outcome, run.summary_message_id, run.client)
            saved = await self.ctx.final_writes.save(plan.run_id, end)  # else kept for later
        finally:
            self.ctx.active.pop(plan.run_id, None)
            try:
                with contextlib.suppress(BusLost):
                    await self.publisher.publish_end(run, outcome)
                    published = True
            finally:
                await self.ctx.release(plan.run_id)
        if not published:
            self._publish_when_back(run, outcome, saved)
        elif saved:
            await let_bridge_go(plan.run_id, run.client)

    def _publish_when_back(self, run: ActiveRun, outcome: store.RunOutcome, saved: bool) -> None:
        task = asyncio.create_task(self._mend(run, outcome, saved), name=f"mend-{run.run_id}")
        self.ctx.mending.add(task)
        task.add_done_callback(self.ctx.mending.discard)

    async def _mend(self, run: ActiveRun, outcome: store.RunOutcome, saved: bool) -> None:
        """The run ended (and is stored) while the bus was away: once it answers, the run's
        events, replayed from its bridge, and its end go on it, so its streams end as the
        answer was stored."""
        client = run.client
        while True:
            await self.ctx.bus_watch.wait_answering()
            if not await self._rejoin(run):
                continue
            try:
                if client is not None:
                    with contextlib.suppress(BridgeUnavailable):  # the end alone, then
                        await self._stream(client, run, client.follow(run.run_id, 0))
                await self.publisher.publish_end(run, outcome)
            except BusLost as exc:
                log.warning("run %s: %s; its end waits for the bus", run.run_id, exc)
                continue
            break
        log.info("run %s: its end is on the event bus", run.run_id)
        if saved:
            await let_bridge_go(run.run_id, client)


async def _cancel(*tasks: asyncio.Task[Any]) -> None:
    """Cancel those not done and wait for them (their errors stay in them; a cancel of the
    caller still reaches it)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
