"""Driving one run: call the session's bridge (moving to the next worker when one cannot be
reached), publish what it streams, store the end and publish exactly one terminal event."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.protocol.events import BridgeEvent, RunEnd
from agentchat.runs import outcomes, store
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.final_write import Unsaved, let_bridge_go
from agentchat.runs.ports import Bridge
from agentchat.runs.publisher import RunPublisher

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
        run.client = client
        await self._drive(run, lambda r: self._stream(client, r, client.follow(r.run_id, 0)))

    async def _drive(self, run: ActiveRun, call: Call) -> None:
        try:
            outcome = outcomes.from_result(run, await call(run))
        except BridgeUnavailable as exc:
            if exc.code == "unknown_run":  # followed again, but its bridge no longer has it
                outcome = outcomes.interrupted(run, store.LOST_ERROR)
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
        except (RedisConnectionError, RedisTimeoutError) as exc:
            # The event bus is away, not the run: its bridge keeps it going and holds its
            # events; the sweeper re-attaches it once Redis answers again.
            log.warning(
                "run %s: the event bus does not answer (%s); left to its bridge", run.run_id, exc
            )
            await self._detach(run)
            return
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
            run.client = client
            try:
                result = await self._stream(client, run, client.run(request))
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
        saved = False
        try:
            await self.ctx.log_writer.flush()
            end = Unsaved(plan.message_id, outcome, run.summary_message_id, run.client)
            saved = await self.ctx.final_writes.save(plan.run_id, end)  # else kept for later
        finally:
            self.ctx.active.pop(plan.run_id, None)
            try:
                await self.publisher.publish_end(run, outcome)
            finally:
                await self.ctx.release(plan.run_id)
        if saved:
            await let_bridge_go(plan.run_id, run.client)
