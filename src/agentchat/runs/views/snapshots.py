"""`/state`: a run's snapshot (status, pending clarify, logs so far) for a client that lost
its stream. Logs come from the bus while it knows the run, else from the stored log rows; both
are read back as the contract's typed node events."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.orm import Session

from agentchat.chat.tables import ChatMessageLog
from agentchat.events.log_lines import line_fields, stored_line_fields
from agentchat.events.model import BusEvent
from agentchat.protocol.events import NODE_EVENT, NODE_STREAM, AnswerDelta
from agentchat.protocol.status import RunStatus
from agentchat.runs import store
from agentchat.runs.context import RunContext
from agentchat.runs.schemas import PendingClarify, RunLog, RunSnapshot


async def snapshot(ctx: RunContext, run_id: str) -> RunSnapshot:
    def read(db: Session) -> tuple[Any, Any, list[ChatMessageLog]]:
        message = store.message_for_run(db, run_id)
        pause = store.pending_pause(db, run_id)
        return message, pause, store.stored_logs(db, message.id)

    message, pause, stored = await ctx.in_thread(read)
    events = await ctx.bus.history(run_id) if await ctx.bus.is_known(run_id) else []
    logs = _logs_of(events) if events else [_stored_log(r) for r in stored]
    pending = None
    if pause is not None and message.status == RunStatus.RUNNING:
        pending = PendingClarify(
            clarify_id=pause.clarify_id,
            question=pause.question,
            choices=json.loads(pause.choices or "[]"),
        )
    return RunSnapshot(
        run_id=run_id,
        session_id=message.session_id,
        message_id=message.id,
        status=message.status,
        event_count=len(events),
        pending_clarify=pending,
        final_text=message.content if message.status != RunStatus.RUNNING else None,
        error=message.error,
        logs=logs,
    )


def _logs_of(events: list[BusEvent]) -> list[RunLog]:
    nodes = (NODE_EVENT.validate_python(e.data) for e in events if e.event == NODE_STREAM)
    lines = (n for n in nodes if not isinstance(n, AnswerDelta))
    return [RunLog(seq=seq, **line_fields(node)) for seq, node in enumerate(lines)]


def _stored_log(row: ChatMessageLog) -> RunLog:
    meta = json.loads(row.meta_json) if row.meta_json else None
    return RunLog(seq=row.seq, **stored_line_fields(row.kind, row.content, row.tool_name, meta))
