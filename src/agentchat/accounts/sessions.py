"""Sign-in sessions kept in the database: every API process sees the same ones, a person can
list theirs and end any, and an administrator's disabling ends them all at once.

The cookie (or `Authorization: Bearer`) holds a random token; the table keeps its SHA-256, so
a copy of the database signs nobody in."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from agentchat.accounts.audit import Origin
from agentchat.accounts.tables import AccountSession, AppUser
from agentchat.core.clock import utcnow
from agentchat.principal import PENDING, Principal
from agentchat.protocol.errors import NotFound

TOUCH_EVERY = timedelta(minutes=5)  # last_seen_at is written at most this often


def new_token() -> str:
    return secrets.token_urlsafe(32)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Found:
    principal: Principal
    digest: str
    expires_at: datetime
    last_seen_at: datetime


def start(db: Session, user: AppUser, method: str, origin: Origin, ttl: timedelta) -> str:
    """A new session for `user`; returns its token (shown once, to the client)."""
    token, now = new_token(), utcnow()
    db.add(
        AccountSession(
            token_digest=digest(token),
            user_id=user.id,
            method=method,
            ip=origin.ip,
            user_agent=(origin.user_agent or "")[:255] or None,
            created_at=now,
            last_seen_at=now,
            expires_at=now + ttl,
        )
    )
    user.last_signin_at = now
    db.flush()
    return token


def find(db: Session, token_digest: str) -> Found | None:
    """The live session of an enabled, approved user with this token digest (one query)."""
    row = db.execute(
        select(AccountSession, AppUser)
        .join(AppUser, AppUser.id == AccountSession.user_id)
        .where(AccountSession.token_digest == token_digest)
    ).first()
    if row is None:
        return None
    session, user = row
    if session.expires_at <= utcnow() or user.disabled or user.role == PENDING:
        return None
    principal = Principal(
        user_id=user.id, role=user.role, username=user.username, session_id=session.id
    )
    return Found(principal, token_digest, session.expires_at, session.last_seen_at)


def touch(db: Session, session_id: int) -> None:
    db.execute(
        update(AccountSession)
        .where(AccountSession.id == session_id)
        .values(last_seen_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def list_of(db: Session, user_id: int) -> list[AccountSession]:
    stmt = select(AccountSession).where(
        AccountSession.user_id == user_id, AccountSession.expires_at > utcnow()
    )
    return list(db.scalars(stmt.order_by(AccountSession.last_seen_at.desc())))


def end_one(db: Session, user_id: int, session_id: int) -> str:
    """End one of `user_id`'s sessions; its digest (404 when it is not theirs)."""
    row = db.scalar(
        select(AccountSession).where(
            AccountSession.id == session_id, AccountSession.user_id == user_id
        )
    )
    if row is None:
        raise NotFound(f"session {session_id} not found", code="session_not_found")
    db.delete(row)
    db.flush()
    return row.token_digest


def end_token(db: Session, token_digest: str) -> None:
    db.execute(delete(AccountSession).where(AccountSession.token_digest == token_digest))


def end_all(db: Session, user_id: int, keep: int | None = None) -> list[str]:
    """End every session of `user_id` (but `keep`); their digests."""
    stmt = select(AccountSession.token_digest).where(AccountSession.user_id == user_id)
    if keep is not None:
        stmt = stmt.where(AccountSession.id != keep)
    digests = list(db.scalars(stmt))
    if digests:
        db.execute(delete(AccountSession).where(AccountSession.token_digest.in_(digests)))
    return digests


def end_expired(db: Session) -> None:
    db.execute(delete(AccountSession).where(AccountSession.expires_at <= utcnow()))
