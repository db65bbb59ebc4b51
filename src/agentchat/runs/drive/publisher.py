"""Publishing one run's events: each typed bridge event goes to the bus in order (with the
run's id), log lines to the batched log writer, clarify requests to the pause table,
compactions to a SUMMARY message.

An event the bus does not take (Redis stalled, restarting, or restarted empty) raises `BusLost`
once and marks the run: from then on its events are stored and not published, and the driver
puts them on the bus again, from the bridge, once it answers."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from agentchat.chat import tree
from agentchat.events.model import UnknownRun
from agentchat.events.redis_health import BUS_ERRORS
from agentchat.protocol.events import (
    NODE_ID,
    AnswerDelta,
    ClarifyAnswered,
    ClarifyRequest,
    ContextCompacted,
    Interim,
    NodeEvent,
    Pause,
)
from agentchat.runs import store
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.drive.endings import end_of_outcome
from agentchat.runs.drive.redact import redact_value
from agentchat.runs.store import RunOutcome


class BusLost(Exception):
    """The bus did not take an event of the run: it does not answer, or it lost the run."""


class RunPublisher:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    async def on_event(self, run: ActiveRun, event: NodeEvent | ContextCompacted) -> None:
        """Handle one bridge event: an event a re-attached run replays is only counted (it is
        stored already) and published if the bus lacks it, so every event keeps its API id."""
        event_id = event.event_id
        if event_id is not None:
            if event_id <= run.event_id:
                return  # seen already (a stream followed again overlaps)
            run.event_id = event_id
        stored = event_id is not None and event_id <= run.stored_upto
        publish = event_id is None or event_id > run.published_upto
        run.events_seen += 1
        body = event.wire()  # one dump per event: scrubbed, then published as is
        if run.secrets:
            clean = redact_value(body, *run.secrets)
            if clean != body:
                event, body = type(event).model_validate(clean), clean
        if isinstance(event, ContextCompacted):
            if not stored:
                await self._store_summary(run, event.summary)
                self.ctx.log_writer.checkpoint(run.plan.message_id, run.answer, event_id)
            if publish:
                compacted = ContextCompacted(
                    run_id=run.run_id,
                    summary=event.summary,
                    summary_message_id=run.summary_message_id,
                )
                await self._put(run, compacted.EVENT, compacted.wire())
            return
        self._record(run, event, body, event_id, stored)
        if isinstance(event, ClarifyRequest) and not stored:
            await self._record_clarify(run, event.meta)
        if isinstance(event, ClarifyAnswered) and event.meta.timed_out and not stored:
            meta = event.meta
            await self.ctx.in_thread(
                lambda db: store.time_out_pause(db, run.run_id, meta.clarify_id, meta.answer)
            )
        if publish:
            # what `event.for_run(run_id).wire()` gives, without copying the model per token
            body.update(runId=run.run_id, nodeId=NODE_ID)  # the log writer took its fields
            await self._put(run, event.EVENT, body)

    async def _put(self, run: ActiveRun, name: str, body: dict[str, Any]) -> None:
        """Publish one event, unless the bus was lost (`BusLost` when it is lost now)."""
        if run.bus_lost:
            return
        try:
            await self.ctx.bus.publish(run.run_id, name, body)
        except UnknownRun as exc:  # Redis restarted empty: the run is registered again
            run.bus_lost = True
            raise BusLost("the event bus no longer knows the run") from exc
        except BUS_ERRORS as exc:
            run.bus_lost = True
            self.ctx.bus_watch.failed()
            raise BusLost(f"the event bus does not answer ({exc!r})") from exc

    def _record(
        self,
        run: ActiveRun,
        event: NodeEvent,
        body: dict[str, Any],
        event_id: int | None,
        stored: bool,
    ) -> None:
        """The answer text and the log line of one event (one line per non-answer event, in
        order: the same seq on a replay); unless `stored` already, both are written with the
        bridge event id they reach."""
        if isinstance(event, Interim):  # it streamed as answer text: it was not the answer
            run.answer.clear()
        if isinstance(event, AnswerDelta):
            run.answer.append(event.content)
        else:
            if not stored:
                self.ctx.log_writer.append(run.plan.message_id, run.seq, event, body)
            run.seq += 1
        if not stored:
            self.ctx.log_writer.checkpoint(run.plan.message_id, run.answer, event_id)

    async def publish_end(self, run: ActiveRun, outcome: RunOutcome) -> None:
        """The run's one terminal event (`BusLost` when the bus does not take it)."""
        end = end_of_outcome(run.run_id, run.plan.message_id, outcome)
        await self._put(run, end.EVENT, end.wire())
        if run.bus_lost:
            raise BusLost("the event bus is away")

    async def _record_clarify(self, run: ActiveRun, pause: Pause) -> None:
        await self.ctx.in_thread(
            lambda db: store.mark_pause(
                db, run.run_id, pause.clarify_id, pause.question, list(pause.choices)
            )
        )

    async def _store_summary(self, run: ActiveRun, summary: str) -> None:
        if run.summary_message_id is None:
            run.summary_message_id = await self.ctx.in_thread(
                lambda db: store.add_summary(db, run.plan.message_id, summary)
            )
        else:
            summary_id = run.summary_message_id

            def update(db: Session) -> None:
                tree.get_message(db, summary_id).content = summary

            await self.ctx.in_thread(update)
