"""The audit log: sign-ins, failed sign-ins, administrators' actions and role changes, with
who, when and from where. Written in the transaction of what it records."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from agentchat.accounts.tables import AppUser, AuditEvent
from agentchat.core.clock import utcnow
from agentchat.principal import Principal


class Action(StrEnum):
    SIGNIN = "signin"
    SIGNIN_FAILED = "signin_failed"
    SIGNOUT = "signout"
    SIGNOUT_EVERYWHERE = "signout_everywhere"
    SESSION_REVOKED = "session_revoked"
    SIGNUP = "signup"
    PASSWORD_CHANGED = "password_changed"
    PASSWORD_RESET = "password_reset"
    USER_CREATED = "user_created"
    USER_DELETED = "user_deleted"
    ROLE_CHANGED = "role_changed"
    USER_DISABLED = "user_disabled"
    USER_ENABLED = "user_enabled"
    INVITATION_CREATED = "invitation_created"
    INVITATION_REVOKED = "invitation_revoked"
    INVITATION_ACCEPTED = "invitation_accepted"
    ADMIN_CHANGE = "admin_change"  # a shared model or an MCP server (accounts.admin_audit)


@dataclass(frozen=True)
class Origin:
    """Where a request came from: the client address (after the trusted proxies) and agent."""

    ip: str | None = None
    user_agent: str | None = None


COMMAND_LINE = Origin(ip=None, user_agent="agentchat command line")

Actor = Principal | AppUser | None


def record(
    db: Session,
    action: Action,
    origin: Origin,
    *,
    actor: Actor = None,
    target: AppUser | None = None,
    target_name: str | None = None,
    **detail: Any,
) -> None:
    actor_id, actor_name = _who(actor)
    db.add(
        AuditEvent(
            at=utcnow(),
            action=action.value,
            actor_id=actor_id,
            actor_name=actor_name,
            target_id=target.id if target is not None else None,
            target_name=(target.username if target is not None else target_name),
            ip=origin.ip,
            user_agent=(origin.user_agent or "")[:255] or None,
            detail=json.dumps(detail, ensure_ascii=False) if detail else None,
        )
    )


def page(db: Session, limit: int, before: int | None, action: str | None) -> list[AuditEvent]:
    """Newest first; `before`: an event id from the previous page."""
    stmt = select(AuditEvent)
    if before is not None:
        stmt = stmt.where(AuditEvent.id < before)
    if action:
        stmt = stmt.where(AuditEvent.action == action)
    return list(db.scalars(stmt.order_by(AuditEvent.id.desc()).limit(limit)))


def _who(actor: Actor) -> tuple[int | None, str | None]:
    if isinstance(actor, AppUser):
        return actor.id, actor.username
    if isinstance(actor, Principal):
        return actor.user_id, actor.username or None
    return None, None
