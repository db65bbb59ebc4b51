"""Invitations: a link an administrator sends, good for one account, until it expires.

The link holds a random token; the table keeps its SHA-256. Opening it (GET) tells the role
it grants; accepting it creates the account and uses the token up, in one transaction (a
second accept finds it used)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from agentchat.accounts.errors import InvitationInvalid
from agentchat.accounts.sessions import digest, new_token
from agentchat.accounts.tables import AccountToken
from agentchat.core.clock import utcnow
from agentchat.protocol.errors import NotFound

KIND = "invite"


def create(
    db: Session, role: str, ttl: timedelta, created_by: int | None
) -> tuple[AccountToken, str]:
    token, now = new_token(), utcnow()
    row = AccountToken(
        kind=KIND,
        token_digest=digest(token),
        role=role,
        created_by=created_by,
        created_at=now,
        expires_at=now + ttl,
    )
    db.add(row)
    db.flush()
    return row, token


def open_ones(db: Session) -> list[AccountToken]:
    stmt = select(AccountToken).where(
        AccountToken.kind == KIND,
        AccountToken.used_at.is_(None),
        AccountToken.expires_at > utcnow(),
    )
    return list(db.scalars(stmt.order_by(AccountToken.id.desc())))


def usable(db: Session, token: str) -> AccountToken:
    """The invitation of `token` if it is unused and unexpired (else 404 invitation_invalid)."""
    row = db.scalar(
        select(AccountToken).where(
            AccountToken.kind == KIND, AccountToken.token_digest == digest(token)
        )
    )
    if row is None or row.used_at is not None or row.expires_at <= utcnow():
        raise InvitationInvalid("This invitation is unknown, used or expired.")
    return row


def use(db: Session, row: AccountToken, user_id: int) -> None:
    """Mark it used; a concurrent accept that got there first makes this one fail."""
    result = db.execute(
        update(AccountToken)
        .where(AccountToken.id == row.id, AccountToken.used_at.is_(None))
        .values(used_at=utcnow(), used_by=user_id)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise InvitationInvalid("This invitation is unknown, used or expired.")


def revoke(db: Session, invitation_id: int) -> None:
    row = db.get(AccountToken, invitation_id)
    if row is None or row.kind != KIND:
        raise NotFound(f"invitation {invitation_id} not found", code="invitation_not_found")
    db.delete(row)
    db.flush()
