"""The MCP server table. The values of a server's environment and headers are stored encrypted
together; only their names and last four characters are kept in the clear."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, String, Text, UniqueConstraint, true
from sqlalchemy.orm import Mapped, mapped_column

from agentchat.core.clock import utcnow
from agentchat.core.database import NEVER_REUSED, Base, BigId, Timestamp


class McpServerRow(Base):
    __tablename__ = "mcp_server"
    __table_args__ = (UniqueConstraint("name", name="uq_mcp_server_name"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40), nullable=False)
    transport: Mapped[str] = mapped_column(String(8), nullable=False)
    command: Mapped[str] = mapped_column(String(1000), nullable=False, default="")
    args_json: Mapped[str | None] = mapped_column("args", Text)
    url: Mapped[str] = mapped_column(String(2000), nullable=False, default="")
    # Fernet token of {"env": {name: value}, "headers": {name: value}}
    secrets_encrypted: Mapped[str | None] = mapped_column(Text)
    # {"env": {name: last4}, "headers": {name: last4}}
    secret_hints_json: Mapped[str | None] = mapped_column("secret_hints", Text)
    enabled: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=true())
    approval: Mapped[str] = mapped_column(String(8), nullable=False, default="ask")
    timeout_s: Mapped[float] = mapped_column(Float, nullable=False)
    connect_timeout_s: Mapped[float] = mapped_column(Float, nullable=False)
    tools_include_json: Mapped[str | None] = mapped_column("tools_include", Text)
    tools_exclude_json: Mapped[str | None] = mapped_column("tools_exclude", Text)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(
        Timestamp, nullable=False, default=utcnow, onupdate=utcnow
    )

    @property
    def args(self) -> list[str]:
        return _load(self.args_json, [])

    @args.setter
    def args(self, value: list[str]) -> None:
        self.args_json = json.dumps(value) if value else None

    @property
    def secret_hints(self) -> dict[str, dict[str, str]]:
        return _load(self.secret_hints_json, {})

    @property
    def tools_include(self) -> list[str]:
        return _load(self.tools_include_json, [])

    @tools_include.setter
    def tools_include(self, value: list[str]) -> None:
        self.tools_include_json = json.dumps(value) if value else None

    @property
    def tools_exclude(self) -> list[str]:
        return _load(self.tools_exclude_json, [])

    @tools_exclude.setter
    def tools_exclude(self, value: list[str]) -> None:
        self.tools_exclude_json = json.dumps(value) if value else None


def _load(text: str | None, empty: Any) -> Any:
    if not text:
        return empty
    try:
        value = json.loads(text)
    except ValueError:
        return empty
    return value if isinstance(value, type(empty)) else empty
