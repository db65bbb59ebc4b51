"""Imports every table so Base.metadata is complete (Alembic and tests use it)."""

from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession
from agentchat.core.database import Base
from agentchat.models.tables import AiModelConfig
from agentchat.runs.tables import WorkflowPause

__all__ = ["AiModelConfig", "Base", "ChatMessage", "ChatMessageLog", "ChatSession", "WorkflowPause"]
