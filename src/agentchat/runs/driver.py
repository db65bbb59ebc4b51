"""Driving one run: call the session's bridge (moving to the next worker when one cannot be
reached), publish what it streams, store the end and publish exactly one terminal event."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from agentchat.bridge.client import BridgeUnavailable
from agentchat.events.contract import RunEnd
from agentchat.runs import outcomes, store
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.final_write import Unsaved
from agentchat.runs.ports import Bridge
from agentchat.runs.publisher import RunPublisher

log = logging.getLogger(__name__)
INTERRUPTED_ERROR = "The server was shut down during this answer; the text so far is kept."


class RunDriver:
    def __init__(self, ctx: RunContext, publisher: RunPublisher) -> None:
        self.ctx = ctx
        self.publisher = publisher

    async def drive(self, run: ActiveRun) -> None:
        try:
            outcome = outcomes.from_result(run, await self._call_bridges(run))
        except BridgeUnavailable as exc:
            outcome = outcomes.failure(run, f"The agent service is unavailable: {exc}")
        except asyncio.CancelledError:
            if run.stop_requested:
                await self._finish(run, outcomes.stopped(run))
            else:
                await self._finish(run, outcomes.failure(run, INTERRUPTED_ERROR))
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
        for client in bridges.candidates(run.plan.hermes_session):
            run.client = client
            try:
                result = await self._turn(client, run)
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

    async def _turn(self, client: Bridge, run: ActiveRun) -> RunEnd:
        """Publish the turn's events as they come; its `RunEnd` says how it ended."""
        async with contextlib.aclosing(client.run(run.request)) as events:
            async for event in events:
                if isinstance(event, RunEnd):
                    return event
                await self.publisher.on_event(run, event)
        raise BridgeUnavailable("the bridge stream ended without a run_end event")

    async def _finish(self, run: ActiveRun, outcome: store.RunOutcome) -> None:
        plan = run.plan
        outcome = outcomes.storable(run, outcome)
        try:
            await self.ctx.log_writer.flush()
            end = Unsaved(plan.message_id, outcome, run.summary_message_id)
            await self.ctx.final_writes.save(plan.run_id, end)  # kept for the sweeper if not
        finally:
            self.ctx.active.pop(plan.run_id, None)
            try:
                await self.publisher.publish_end(run, outcome)
            finally:
                await self.ctx.release(plan.run_id)
