"""Signing in with a name and password, and the per-account throttle on wrong passwords.

Runs in one transaction of its own (`sign_in` is called on a worker thread: argon2 costs tens
of milliseconds of CPU), committed whatever the outcome, so a wrong password is counted and
logged even though the request fails; the caller raises the returned refusal afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from agentchat.accounts import passwords, sessions
from agentchat.accounts.audit import Action, Origin, record
from agentchat.accounts.errors import (
    AccountDisabled,
    AccountPending,
    BadCredentials,
    SigninThrottled,
)
from agentchat.accounts.tables import AppUser
from agentchat.accounts.users import find_by_name
from agentchat.core.clock import utcnow
from agentchat.principal import PENDING
from agentchat.protocol.errors import AppError

FIRST_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(minutes=15)


@dataclass(frozen=True)
class Outcome:
    token: str | None = None
    user_id: int | None = None
    refusal: AppError | None = None


def sign_in(
    db: Session, name: str, password: str, origin: Origin, ttl: timedelta, free_failures: int
) -> Outcome:
    user = find_by_name(db, name)
    now = utcnow()
    if user is not None and user.signin_blocked_until and user.signin_blocked_until > now:
        wait = (user.signin_blocked_until - now).total_seconds()
        record(db, Action.SIGNIN_FAILED, origin, target=user, reason="throttled")
        return Outcome(refusal=throttled(wait))
    if not passwords.verify(user.password_hash if user else None, password):
        return Outcome(refusal=_failed(db, user, name, origin, now, free_failures))
    assert user is not None  # verify() is never true without a stored hash
    if user.disabled:
        record(db, Action.SIGNIN_FAILED, origin, target=user, reason="disabled")
        return Outcome(refusal=AccountDisabled("This account is disabled."))
    if user.role == PENDING:
        record(db, Action.SIGNIN_FAILED, origin, target=user, reason="pending")
        return Outcome(refusal=AccountPending("An administrator has not approved this account."))
    user.failed_signins, user.signin_blocked_until = 0, None
    if user.password_hash and passwords.needs_rehash(user.password_hash):
        user.password_hash = passwords.hash_password(password)
    token = sessions.start(db, user, "password", origin, ttl)
    record(db, Action.SIGNIN, origin, actor=user, method="password")
    return Outcome(token=token, user_id=user.id)


def _failed(
    db: Session,
    user: AppUser | None,
    name: str,
    origin: Origin,
    now: datetime,
    free_failures: int,
) -> AppError:
    """Count the failure; past `free_failures` in a row the account waits before the next
    try (30 s, doubling, at most 15 min), whoever tries from wherever."""
    record(db, Action.SIGNIN_FAILED, origin, target=user, target_name=name[:64], reason="password")
    if user is None:
        return BadCredentials("Wrong user name or password.")
    user.failed_signins += 1
    over = user.failed_signins - free_failures
    if over >= 0:
        wait = min(FIRST_WAIT * (2**over), LONGEST_WAIT)
        user.signin_blocked_until = now + wait
    return BadCredentials("Wrong user name or password.")


def throttled(wait_s: float) -> SigninThrottled:
    return SigninThrottled(
        "Too many wrong passwords for this account; try again later.", wait_s=wait_s
    )
