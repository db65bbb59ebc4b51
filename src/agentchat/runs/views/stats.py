"""Session statistics for the memory drawer: messages, stored token usage, compressions."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from agentchat.chat import tree
from agentchat.chat.enums import MessageRole, MessageStatus
from agentchat.chat.sessions import get_session
from agentchat.chat.tables import ChatMessage, ChatMessageLog
from agentchat.core.clock import iso
from agentchat.protocol.usage import usage_from_json
from agentchat.runs.schemas import SessionStats
from agentchat.runs.views.usage import context_window, total_usage


def session_stats(db: Session, session_id: int) -> SessionStats:
    chat = get_session(db, session_id)
    in_session = ChatMessage.session_id == session_id
    total = db.scalar(select(func.count()).select_from(ChatMessage).where(in_session)) or 0
    summaries = (
        db.scalar(
            select(func.count())
            .select_from(ChatMessage)
            .where(
                in_session,
                ChatMessage.role == MessageRole.SYSTEM,
                ChatMessage.status == MessageStatus.SUMMARY,
            )
        )
        or 0
    )
    runs = (
        db.scalar(
            select(func.count())
            .select_from(ChatMessage)
            .where(in_session, ChatMessage.role == MessageRole.ASSISTANT)
        )
        or 0
    )
    tool_calls = (
        db.scalar(
            select(func.count())
            .select_from(ChatMessageLog)
            .join(ChatMessage, ChatMessage.id == ChatMessageLog.message_id)
            .where(in_session, ChatMessageLog.kind == "tool_call")
        )
        or 0
    )
    usages = db.scalars(
        select(ChatMessage.usage_json).where(
            in_session,
            ChatMessage.role == MessageRole.ASSISTANT,
            ChatMessage.usage_json.is_not(None),
        )
    )
    branch = tree.active_branch(db, session_id)
    latest = next((usage_from_json(m.usage_json) for m in reversed(branch) if m.usage_json), None)
    return SessionStats(
        messages=int(total),
        active_branch_messages=len(branch),
        usage=total_usage(usage_from_json(raw) for raw in usages),
        context=context_window(latest),
        compressions=int(summaries),
        last_compression_at=iso(chat.last_summarized_at),
        runs=int(runs),
        tool_calls=int(tool_calls),
    )
