"""Short-term memory (spec §5.8.1): the recent tool calls and their results across turns.

Read from the log lines of the last answers on the active branch, newest call first. Two
statements however long the chat: the branch window, then its tool log lines.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from agentchat.chat.agent_log import ToolCall, tool_calls
from agentchat.chat.presenters import group_logs
from agentchat.chat.schemas import ToolCallPublic
from agentchat.chat.tables import ChatMessageLog
from agentchat.chat.tree import active_branch

WINDOW = 50  # messages of the branch looked at: the page's own window
RESULT_CHARS = 4_000
TOOL_KINDS = ("tool_call", "tool_result")


def recent_tool_calls(db: Session, session_id: int, limit: int) -> list[ToolCallPublic]:
    answers = [m.id for m in active_branch(db, session_id, limit=WINDOW) if m.role == "ASSISTANT"]
    if not answers:
        return []
    stmt = (
        select(ChatMessageLog)
        .where(ChatMessageLog.message_id.in_(answers), ChatMessageLog.kind.in_(TOOL_KINDS))
        .order_by(ChatMessageLog.message_id, ChatMessageLog.seq)
    )
    logs = group_logs(db.scalars(stmt))
    found: list[ToolCallPublic] = []
    for message_id in reversed(answers):
        calls = tool_calls(logs.get(message_id, []))
        found.extend(_public(message_id, call) for call in reversed(calls))
        if len(found) >= limit:
            break
    return found[:limit]


def _public(message_id: int, call: ToolCall) -> ToolCallPublic:
    result = call.result
    return ToolCallPublic(
        message_id=message_id,
        tool_call_id=call.call_id,
        tool_name=call.name,
        args=call.args,
        result=None if result is None else result[:RESULT_CHARS],
        result_chars=len(result or ""),
        is_error=call.is_error,
        duration_ms=call.duration_ms,
        called_at=call.log.created_at if call.log else None,
    )
