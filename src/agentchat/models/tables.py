"""The model registry table. The API key is stored encrypted and never returned."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Float, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from agentchat.core.clock import utcnow
from agentchat.core.database import NEVER_REUSED, Base, BigId, Timestamp
from agentchat.protocol.context_length import DEFAULT_CONTEXT_LENGTH


class AiModelConfig(Base):
    __tablename__ = "ai_model_config"
    __table_args__ = NEVER_REUSED

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128), nullable=False)
    provider: Mapped[str] = mapped_column(String(32), nullable=False, default="openai-compatible")
    base_url: Mapped[str] = mapped_column(String(512), nullable=False)
    model_name: Mapped[str] = mapped_column(String(255), nullable=False)
    api_key_encrypted: Mapped[str | None] = mapped_column(Text)
    api_key_last4: Mapped[str | None] = mapped_column(String(4))
    context_length: Mapped[int] = mapped_column(
        Integer, nullable=False, default=DEFAULT_CONTEXT_LENGTH
    )
    max_output_tokens: Mapped[int | None] = mapped_column(Integer)
    temperature: Mapped[float | None] = mapped_column(Float)
    reasoning_effort: Mapped[str | None] = mapped_column(String(16))
    # Whether the model sees images (NULL: the provider's default, models.vision)
    vision: Mapped[bool | None] = mapped_column(Boolean)
    # No foreign key: deleting the fallback model clears this in the service instead.
    fallback_model_id: Mapped[int | None] = mapped_column(BigId)
    is_default: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=false())
    is_builtin: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=false())
    # May write a chat's summaries (its context compression); migration 0011.
    can_summarize: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=false())
    # NULL: a shared model (the administrator's; everyone may pick it, nobody sees its key);
    # else the account whose private model it is, seen by that account alone (migration 0010).
    owner_id: Mapped[int | None] = mapped_column(BigId, index=True)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        Timestamp, nullable=False, default=utcnow, onupdate=utcnow
    )
