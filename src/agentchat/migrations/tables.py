"""Imports every table so Base.metadata is complete (Alembic and tests use it)."""

from agentchat.accounts.tables import AccountSession, AccountToken, AppUser, AuditEvent
from agentchat.attachments.tables import (
    AttachmentBlob,
    AttachmentChunk,
    ChatAttachment,
    MessageAttachment,
)
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession, WorkflowPause
from agentchat.core.database import Base
from agentchat.mcp_servers.tables import McpServerRow
from agentchat.models.tables import AiModelConfig

__all__ = [
    "AccountSession",
    "AccountToken",
    "AiModelConfig",
    "AppUser",
    "AttachmentBlob",
    "AttachmentChunk",
    "AuditEvent",
    "Base",
    "ChatAttachment",
    "ChatMessage",
    "ChatMessageLog",
    "ChatSession",
    "McpServerRow",
    "MessageAttachment",
    "WorkflowPause",
]
