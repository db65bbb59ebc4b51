"""Imports every table so Base.metadata is complete (Alembic and tests use it)."""

from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession, WorkflowPause
from agentchat.core.database import Base
from agentchat.models.tables import AiModelConfig

__all__ = ["AiModelConfig", "Base", "ChatMessage", "ChatMessageLog", "ChatSession", "WorkflowPause"]
