"""The pause table: one row per clarify question the agent asked during a run."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from agentchat.core.clock import utcnow
from agentchat.core.database import Base, BigId, Timestamp


class WorkflowPause(Base):
    __tablename__ = "workflow_pause"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64), nullable=False)
    node_id: Mapped[str] = mapped_column(String(64), nullable=False, default="agent")
    clarify_id: Mapped[str] = mapped_column(String(128), nullable=False)
    question: Mapped[str] = mapped_column(Text, nullable=False)
    choices: Mapped[str | None] = mapped_column(Text)  # JSON list
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="PENDING")
    answer: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    answered_at: Mapped[datetime | None] = mapped_column(Timestamp)

    __table_args__ = (
        UniqueConstraint("run_id", "clarify_id", name="uq_workflow_pause_run_clarify"),
        Index("idx_workflow_pause_run", "run_id", "status"),
    )
