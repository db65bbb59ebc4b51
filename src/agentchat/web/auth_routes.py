"""/api/auth: sign in (without accounts with the access token, with accounts with a name and
password; either way an HttpOnly, SameSite=Strict cookie), sign out, and ask whether signing
in is needed and as whom."""

from __future__ import annotations

import math
from typing import Literal

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import Field

from agentchat.accounts.cookies import drop_session_cookie
from agentchat.accounts.deps import GateDep, OriginDep
from agentchat.accounts.schemas import Me
from agentchat.accounts.sign_in_sessions import FailureThrottle, SessionStore, client_of
from agentchat.accounts.signin_routes import me, password_sign_in, sign_out
from agentchat.core.deps import SettingsDep
from agentchat.principal import STATE_KEY, Principal
from agentchat.protocol.camel import CamelModel, ErrorBody
from agentchat.protocol.errors import Invalid, Unauthorized
from agentchat.web.auth import (
    COOKIE_NAME,
    is_authenticated,
    presents_credentials,
    same_secret,
    session_token,
)
from agentchat.web.bind_rules import configured_token

router = APIRouter(prefix="/api/auth", tags=["auth"])


class LoginRequest(CamelModel):
    """Without accounts: `token`. With accounts: `username` and `password`."""

    token: str | None = Field(default=None, max_length=4096)
    username: str | None = Field(default=None, max_length=256)
    password: str | None = Field(default=None, max_length=4096)


class AuthStatus(CamelModel):
    """`mode` accounts: people sign in with a name and password (or `singleSignOn`, the
    name of the single sign-on button, when configured); `user` is who this request is."""

    auth_required: bool
    authenticated: bool
    mode: Literal["single", "accounts"] = "single"
    user: Me | None = None
    signup: Literal["off", "approval", "open"] = "off"
    single_sign_on: str | None = None


def _principal(request: Request) -> Principal | None:
    principal = getattr(request.state, STATE_KEY, None)
    return principal if isinstance(principal, Principal) else None


def _accounts_status(request: Request, settings: SettingsDep) -> AuthStatus:
    principal = _principal(request)
    return AuthStatus(
        auth_required=True,
        authenticated=principal is not None,
        mode="accounts",
        user=me(principal) if principal is not None else None,
        signup=settings.signup,
        single_sign_on=settings.oidc_name if settings.oidc_enabled else None,
    )


def _sessions(request: Request) -> SessionStore:
    store: SessionStore = request.app.state.auth_sessions
    return store


def _throttle(request: Request) -> FailureThrottle:
    throttle: FailureThrottle = request.app.state.auth_throttle
    return throttle


def _refuse_if_throttled(request: Request, client: str) -> None:
    wait = _throttle(request).wait_s(client)
    if wait > 0:
        message = "Too many failed sign-in attempts from this address; try again later."
        retry = {"Retry-After": str(max(1, math.ceil(wait)))}
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, message, headers=retry)


@router.get(
    "/status",
    operation_id="authStatus",
    responses={429: {"model": ErrorBody, "description": "Too many failed attempts"}},
)
async def auth_status(request: Request, settings: SettingsDep, gate: GateDep) -> AuthStatus:
    """Public: whether the server needs a token, and whether this request carries it. A wrong
    token or session counts as a failed sign-in (this is no free place to guess the token).
    With accounts: who this request is signed in as, if anyone."""
    if await gate.accounts_on():
        return _accounts_status(request, settings)
    token = configured_token(settings)
    if token is None:
        return AuthStatus(auth_required=False, authenticated=True)
    if not presents_credentials(request.scope):
        return AuthStatus(auth_required=True, authenticated=False)
    client = client_of(request.scope)
    _refuse_if_throttled(request, client)
    signed_in = await is_authenticated(request.scope, token, _sessions(request))
    if not signed_in:
        _throttle(request).failed(client)
    return AuthStatus(auth_required=True, authenticated=signed_in)


@router.post(
    "/login",
    operation_id="login",
    responses={
        401: {"model": ErrorBody, "description": "Wrong token, name or password"},
        403: {"model": ErrorBody, "description": "Account disabled or not approved yet"},
        429: {"model": ErrorBody, "description": "Too many failed attempts"},
    },
)
async def login(
    body: LoginRequest,
    request: Request,
    response: Response,
    settings: SettingsDep,
    gate: GateDep,
    origin: OriginDep,
) -> AuthStatus:
    """Check the token (with accounts: the name and password) and start a server-side session
    kept in a cookie scripts cannot read. Refusals: 401 `bad_credentials`, 403
    `account_disabled` / `account_pending`, 429 `too_many_requests` (this address) /
    `signin_throttled` (this account)."""
    client = client_of(request.scope)
    if await gate.accounts_on():
        if body.username is None or body.password is None:
            raise Invalid("Sign in with username and password.", code="credentials_missing")
        _refuse_if_throttled(request, client)
        user = await password_sign_in(
            request, response, body.username, body.password, origin, _throttle(request)
        )
        return _accounts_status(request, settings).model_copy(
            update={"authenticated": True, "user": user}
        )
    token = configured_token(settings)
    if token is None:
        return AuthStatus(auth_required=False, authenticated=True)
    _refuse_if_throttled(request, client)
    if not same_secret(body.token or "", token):
        _throttle(request).failed(client)
        raise Unauthorized("That is not this server's access token.")
    response.set_cookie(
        COOKIE_NAME,
        await _sessions(request).create(),
        max_age=int(settings.session_ttl_hours * 3600),
        httponly=True,
        samesite="strict",
        path="/",
        secure=request.url.scheme == "https",
    )
    return AuthStatus(auth_required=True, authenticated=True)


@router.post("/logout", operation_id="logout", status_code=status.HTTP_204_NO_CONTENT)
async def logout(request: Request, gate: GateDep, origin: OriginDep) -> Response:
    """End this sign-in on the server (the cookie stops working everywhere) and drop it."""
    session_id = request.cookies.get(COOKIE_NAME)
    if session_id and hasattr(request.app.state, "auth_sessions"):
        await _sessions(request).revoke(session_id)
    account_token = session_token(request.scope)
    if account_token and await gate.accounts_on():
        await sign_out(request, account_token, origin)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="strict")
    drop_session_cookie(response)
    return response
