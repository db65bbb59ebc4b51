"""Publishing one run's events: each bridge event goes to the bus in order, log lines to the
batched log writer, clarify requests to the pause table, compactions to a SUMMARY message."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from agentchat.chat import service as tree
from agentchat.core.redact import redact, redact_value
from agentchat.runs import store
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.endings import ending
from agentchat.runs.store import RunOutcome


class RunPublisher:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    async def on_event(
        self, run: ActiveRun, kind: str, content: str, tool_name: str | None, meta: Any
    ) -> None:
        run.events_seen += 1
        if run.secret:
            content, meta = redact(content, run.secret), redact_value(meta, run.secret)
        if kind == "context_compacted":
            await self._on_compacted(run, content)
            return
        if kind == "answer_delta":
            run.answer.append(content)
        else:
            self.ctx.log_writer.append(run.plan.message_id, run.seq, kind, content, tool_name, meta)
            run.seq += 1
            if kind == "clarify_request" and isinstance(meta, dict):
                await self._record_clarify(run, meta)
        data: dict[str, Any] = {
            "runId": run.run_id,
            "nodeId": "agent",
            "kind": kind,
            "content": content,
        }
        if tool_name:
            data["toolName"] = tool_name
        if meta:
            data["meta"] = meta
        await self.ctx.bus.publish(run.run_id, "node_stream", data)

    async def publish_end(self, run: ActiveRun, outcome: RunOutcome) -> None:
        event, data = ending(run.run_id, run.plan.message_id, outcome)
        await self.ctx.bus.publish(run.run_id, event, data)

    async def _record_clarify(self, run: ActiveRun, meta: dict[str, Any]) -> None:
        clarify_id = str(meta.get("clarifyId") or "")
        question = str(meta.get("question") or "")
        choices = [str(c) for c in meta.get("choices") or []]
        await self.ctx.in_thread(
            lambda db: store.mark_pause(db, run.run_id, clarify_id, question, choices)
        )

    async def _on_compacted(self, run: ActiveRun, summary: str) -> None:
        if run.summary_message_id is None:
            run.summary_message_id = await self.ctx.in_thread(
                lambda db: store.add_summary(db, run.plan.message_id, summary)
            )
        else:
            summary_id = run.summary_message_id

            def update(db: Session) -> None:
                tree.get_message(db, summary_id).content = summary

            await self.ctx.in_thread(update)
        data = {"runId": run.run_id, "summary": summary, "summaryMessageId": run.summary_message_id}
        await self.ctx.bus.publish(run.run_id, "context_compacted", data)
