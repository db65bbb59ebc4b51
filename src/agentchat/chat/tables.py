"""Tables of the chat: sessions, the message tree, each assistant message's log lines and the
clarify questions its run asked (the run service writes the last two)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    event,
    text,
    true,
    update,
)
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, Mapper, mapped_column, validates

from agentchat.chat.cjk_text import has_unspaced_script
from agentchat.chat.enums import PauseStatus, SessionStatus
from agentchat.chat.folding import fold
from agentchat.core.clock import utcnow
from agentchat.core.database import NEVER_REUSED, Base, BigId, Timestamp
from agentchat.core.database.packed_text import PackedText
from agentchat.models.tables import AiModelConfig

TITLE_KEY = String(1024).with_variant(
    mysql.VARCHAR(1024, charset="utf8mb4", collation="utf8mb4_bin"), "mysql", "mariadb"
)


class ChatSession(Base):
    __tablename__ = "chat_session"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    session_uuid: Mapped[str] = mapped_column(String(36), unique=True, nullable=False)
    title: Mapped[str | None] = mapped_column(String(255))
    # The title folded for search (migration 0013), set with it: compared byte for byte.
    title_key: Mapped[str | None] = mapped_column(TITLE_KEY)
    model_id: Mapped[int | None] = mapped_column(BigId)
    skill_folder: Mapped[str | None] = mapped_column(String(255))
    hermes_session: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(
        String(16), nullable=False, server_default=SessionStatus.ACTIVE.value
    )
    last_summarized_at: Mapped[datetime | None] = mapped_column(Timestamp)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    last_message_at: Mapped[datetime | None] = mapped_column(Timestamp)
    updated_at: Mapped[datetime] = mapped_column(
        Timestamp, nullable=False, default=utcnow, onupdate=utcnow
    )
    # Sort key for the list: last activity, or creation while there is none. Kept as a column
    # so the list is one index scan on every dialect.
    activity_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    # The last message of the active branch, so the page reads its window upward from the leaf
    # instead of walking the whole branch down from the root. NULL: derive it from the tree.
    active_leaf_id: Mapped[int | None] = mapped_column(BigId)
    # JSON lists (migration 0005): the toolsets every run of the chat narrows the server's list
    # to (NULL: all of them), and the hermes approval keys a person allowed "for this chat".
    toolsets_json: Mapped[str | None] = mapped_column("toolsets", Text)
    approvals_json: Mapped[str | None] = mapped_column("approvals", Text)
    # The account that owns the chat (migration 0010); NULL on a server without accounts.
    owner_id: Mapped[int | None] = mapped_column(BigId)
    # Migration 0011: the MCP servers this chat turned off (JSON list; NULL: none), and the
    # model that writes its summaries (NULL: the chat's own model).
    mcp_off_json: Mapped[str | None] = mapped_column("mcp_off", Text)
    compression_model_id: Mapped[int | None] = mapped_column(BigId)

    __table_args__ = (
        Index("idx_chat_session_last_msg", "status", "last_message_at"),
        Index("idx_chat_session_activity", "status", "activity_at", "id"),
        Index("idx_chat_session_owner", "owner_id", "status", "activity_at", "id"),
        NEVER_REUSED,
    )

    @validates("title")
    def _keep_title_key(self, _key: str, title: str | None) -> str | None:
        self.title_key = None if title is None else fold(title)
        return title

    @property
    def toolsets(self) -> list[str] | None:
        return _json_list(self.toolsets_json)

    @toolsets.setter
    def toolsets(self, value: list[str] | None) -> None:
        self.toolsets_json = None if value is None else json.dumps(value)

    @property
    def mcp_off(self) -> list[str]:
        return _json_list(self.mcp_off_json) or []

    @mcp_off.setter
    def mcp_off(self, value: list[str]) -> None:
        self.mcp_off_json = json.dumps(sorted(set(value))) if value else None

    @property
    def approvals(self) -> list[str]:
        return _json_list(self.approvals_json) or []

    @approvals.setter
    def approvals(self, value: list[str]) -> None:
        self.approvals_json = json.dumps(sorted(set(value))) if value else None


class ChatMessage(Base):
    __tablename__ = "chat_message"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    session_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("chat_session.id", ondelete="CASCADE"), nullable=False
    )
    parent_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("chat_message.id", ondelete="CASCADE")
    )
    is_active: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=true())
    branch_order: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    depth: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    run_id: Mapped[str | None] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    # Deflated on SQLite (core.database.packed_text), but for text that search reads with LIKE.
    content: Mapped[str] = mapped_column(
        PackedText(keep_plain=has_unspaced_script), nullable=False, default=""
    )
    status: Mapped[str] = mapped_column(String(16), nullable=False)
    model_id: Mapped[int | None] = mapped_column(BigId)
    skill_folder: Mapped[str | None] = mapped_column(String(255))
    error: Mapped[str | None] = mapped_column(Text)
    attachment_id: Mapped[int | None] = mapped_column(BigId)
    # The agent's own messages of this turn (tool calls and results included) as JSON, or for a
    # SYSTEM/SUMMARY message the whole compacted history; sent back to the bridge as history.
    agent_messages: Mapped[str | None] = mapped_column(PackedText())
    usage_json: Mapped[str | None] = mapped_column(Text)
    # A RUNNING answer: the bridge event its stored logs and text reach (the re-attach point)
    bridge_event_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(Timestamp)

    # Sized for issue 17 (migration 0005c): idx_chat_message_roots also serves the session's
    # filter; the status index holds RUNNING answers only where partial indexes exist; on
    # MariaDB the table is compressed.
    __table_args__ = (
        Index("idx_chat_message_parent", "parent_id", "is_active"),
        Index("idx_chat_message_run", "run_id"),
        Index("idx_chat_message_roots", "session_id", "parent_id", "is_active"),
        Index(
            "idx_chat_message_status",
            "status",
            sqlite_where=text("status = 'RUNNING'"),
            postgresql_where=text("status = 'RUNNING'"),
        ),
        {"mysql_row_format": "COMPRESSED", "mysql_key_block_size": "8", **NEVER_REUSED},
    )


class ChatMessageLog(Base):
    __tablename__ = "chat_message_log"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    message_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("chat_message.id", ondelete="CASCADE"), nullable=False
    )
    seq: Mapped[int] = mapped_column(Integer, nullable=False)
    kind: Mapped[str] = mapped_column(String(24), nullable=False)
    content: Mapped[str | None] = mapped_column(PackedText())
    tool_name: Mapped[str | None] = mapped_column(String(128))
    meta_json: Mapped[str | None] = mapped_column(PackedText())
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)

    __table_args__ = (
        Index("idx_chat_log_message", "message_id", "seq"),
        Index("idx_chat_log_kind", "message_id", "kind"),
        NEVER_REUSED,
    )


class WorkflowPause(Base):
    """One row per clarify question the agent asked during a run."""

    __tablename__ = "workflow_pause"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64), nullable=False)
    node_id: Mapped[str] = mapped_column(String(64), nullable=False, default="agent")
    clarify_id: Mapped[str] = mapped_column(String(128), nullable=False)
    question: Mapped[str] = mapped_column(Text, nullable=False)
    choices: Mapped[str | None] = mapped_column(Text)  # JSON list
    status: Mapped[str] = mapped_column(
        String(16), nullable=False, default=PauseStatus.PENDING.value
    )
    answer: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    answered_at: Mapped[datetime | None] = mapped_column(Timestamp)

    __table_args__ = (
        UniqueConstraint("run_id", "clarify_id", name="uq_workflow_pause_run_clarify"),
        Index("idx_workflow_pause_run", "run_id", "status"),
        NEVER_REUSED,
    )


@event.listens_for(AiModelConfig, "after_delete")
def _sessions_forget_deleted_model(
    _: Mapper[AiModelConfig], conn: Connection, model: AiModelConfig
) -> None:
    """Sessions that used a deleted model fall back to the default; messages keep the id.

    A listener, so the model registry knows nothing of the chat that refers to it."""
    conn.execute(update(ChatSession).where(ChatSession.model_id == model.id).values(model_id=None))


__all__ = ["ChatMessage", "ChatMessageLog", "ChatSession", "WorkflowPause"]


def _json_list(raw: str | None) -> list[str] | None:
    if raw is None:
        return None
    try:
        value: Any = json.loads(raw)
    except ValueError:
        return None
    return [str(v) for v in value] if isinstance(value, list) else None
