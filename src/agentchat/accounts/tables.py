"""Tables of accounts: users, their sign-in sessions, one-time tokens, the audit log."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from agentchat.core.clock import utcnow
from agentchat.core.database import NEVER_REUSED, Base, BigId, Timestamp


class AppUser(Base):
    __tablename__ = "app_user"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(64), nullable=False)  # as shown (NFKC)
    # How sign-in finds the name (case folded) and how alike names are told apart
    # (accounts.names): each unique, so no two accounts share either.
    username_key: Mapped[str] = mapped_column(String(192), nullable=False, unique=True)
    lookalike_key: Mapped[str] = mapped_column(String(192), nullable=False, unique=True)
    role: Mapped[str] = mapped_column(String(16), nullable=False)
    disabled: Mapped[bool] = mapped_column(Boolean, nullable=False, server_default=false())
    password_hash: Mapped[str | None] = mapped_column(String(255))  # None: single sign-on only
    oidc_issuer: Mapped[str | None] = mapped_column(String(255))
    oidc_subject: Mapped[str | None] = mapped_column(String(255))
    failed_signins: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    signin_blocked_until: Mapped[datetime | None] = mapped_column(Timestamp)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    last_signin_at: Mapped[datetime | None] = mapped_column(Timestamp)

    __table_args__ = (
        UniqueConstraint("oidc_issuer", "oidc_subject", name="uq_app_user_oidc"),
        NEVER_REUSED,  # a deleted account's id is never another's
    )


class AccountSession(Base):
    """A sign-in: the cookie holds a random token, the table only its SHA-256."""

    __tablename__ = "account_session"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    token_digest: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    user_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("app_user.id", ondelete="CASCADE"), nullable=False
    )
    method: Mapped[str] = mapped_column(String(16), nullable=False)
    ip: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False)

    __table_args__ = (Index("idx_account_session_user", "user_id"), NEVER_REUSED)


class AccountToken(Base):
    """A one-time token that expires: an invitation (kind `invite`, with the role it grants)
    or a single sign-on in progress (kind `oidc`, with its nonce and PKCE verifier)."""

    __tablename__ = "account_token"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    token_digest: Mapped[str] = mapped_column(String(64), nullable=False, unique=True)
    role: Mapped[str | None] = mapped_column(String(16))
    payload: Mapped[str | None] = mapped_column(Text)  # JSON
    created_by: Mapped[int | None] = mapped_column(BigId)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(Timestamp)
    used_by: Mapped[int | None] = mapped_column(BigId)

    __table_args__ = (Index("idx_account_token_kind", "kind", "expires_at"), NEVER_REUSED)


class AuditEvent(Base):
    """Who did what, when, from where. Names are copied: the log outlives deleted accounts."""

    __tablename__ = "audit_event"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    actor_id: Mapped[int | None] = mapped_column(BigId)
    actor_name: Mapped[str | None] = mapped_column(String(64))
    target_id: Mapped[int | None] = mapped_column(BigId)
    target_name: Mapped[str | None] = mapped_column(String(64))
    ip: Mapped[str | None] = mapped_column(String(64))
    user_agent: Mapped[str | None] = mapped_column(String(255))
    detail: Mapped[str | None] = mapped_column(Text)  # JSON

    __table_args__ = (
        Index("idx_audit_event_at", "at"),
        Index("idx_audit_event_actor", "actor_id"),
        NEVER_REUSED,
    )


__all__ = ["AccountSession", "AccountToken", "AppUser", "AuditEvent"]
