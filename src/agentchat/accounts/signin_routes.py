"""Signing in and out with accounts: the work behind /api/auth/login, /logout and /status once
the server has accounts (web.auth_routes calls these; without accounts it keeps the token)."""

from __future__ import annotations

from datetime import timedelta

from fastapi import Request, Response

from agentchat.accounts import sessions
from agentchat.accounts.audit import Action, Origin, record
from agentchat.accounts.cookies import set_session_cookie
from agentchat.accounts.deps import transact
from agentchat.accounts.errors import BadCredentials
from agentchat.accounts.gate import AccountsGate
from agentchat.accounts.schemas import Me
from agentchat.accounts.sign_in_sessions import FailureThrottle, client_of
from agentchat.accounts.signin import sign_in
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.principal import SINGLE, Principal


def me(principal: Principal) -> Me:
    mode = "single" if principal.user_id is None else "accounts"
    return Me(id=principal.user_id, username=principal.username, role=principal.role, mode=mode)


def session_ttl(settings: Settings) -> timedelta:
    return timedelta(hours=settings.session_ttl_hours)


async def password_sign_in(
    request: Request,
    response: Response,
    name: str,
    password: str,
    origin: Origin,
    throttle: FailureThrottle,
) -> Me:
    """Check the password (the address's and the account's throttles first), start a
    session, set its cookie. Raises the refusal after its failure is stored."""
    settings: Settings = request.app.state.settings
    database: Database = request.app.state.db
    outcome = await transact(
        database,
        lambda db: sign_in(
            db, name, password, origin, session_ttl(settings), settings.signin_failures_per_account
        ),
    )
    if outcome.refusal is not None:
        if isinstance(outcome.refusal, BadCredentials):
            throttle.failed(client_of(request.scope))
        raise outcome.refusal
    assert outcome.token is not None
    set_session_cookie(response, request, outcome.token, int(session_ttl(settings).total_seconds()))
    gate: AccountsGate = request.app.state.accounts
    found = await gate.who(outcome.token)
    return me(found.principal if found else SINGLE)


async def sign_out(request: Request, token: str, origin: Origin) -> None:
    """End the session of `token` on the server (everywhere: its cookie stops working)."""
    database: Database = request.app.state.db
    gate: AccountsGate = request.app.state.accounts
    token_digest = sessions.digest(token)
    found = await gate.who(token)

    def end(db: object) -> None:
        sessions.end_token(db, token_digest)  # type: ignore[arg-type]
        if found is not None:
            record(db, Action.SIGNOUT, origin, actor=found.principal)  # type: ignore[arg-type]

    await transact(database, end)
    await gate.ended(digests=[token_digest])
