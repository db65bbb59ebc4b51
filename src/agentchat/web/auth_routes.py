"""/api/auth: sign in once with the access token (an HttpOnly, SameSite=Strict cookie), sign
out, and ask whether signing in is needed."""

from __future__ import annotations

import math

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import Field

from agentchat.core.auth_sessions import FailureThrottle, SessionStore, client_of
from agentchat.core.deps import SettingsDep
from agentchat.protocol.camel import CamelModel, ErrorBody
from agentchat.protocol.errors import Unauthorized
from agentchat.web.auth import (
    COOKIE_NAME,
    configured_token,
    is_authenticated,
    presents_credentials,
    same_secret,
)

router = APIRouter(prefix="/api/auth", tags=["auth"])


class LoginRequest(CamelModel):
    token: str = Field(max_length=4096)


class AuthStatus(CamelModel):
    auth_required: bool
    authenticated: bool


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
async def auth_status(request: Request, settings: SettingsDep) -> AuthStatus:
    """Public: whether the server needs a token, and whether this request carries it. A wrong
    token or session counts as a failed sign-in (this is no free place to guess the token)."""
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
        401: {"model": ErrorBody, "description": "Wrong token"},
        429: {"model": ErrorBody, "description": "Too many failed attempts"},
    },
)
async def login(
    body: LoginRequest, request: Request, response: Response, settings: SettingsDep
) -> AuthStatus:
    """Check the token and start a server-side session kept in a cookie scripts cannot read."""
    token = configured_token(settings)
    if token is None:
        return AuthStatus(auth_required=False, authenticated=True)
    client = client_of(request.scope)
    _refuse_if_throttled(request, client)
    if not same_secret(body.token, token):
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
async def logout(request: Request) -> Response:
    """End this sign-in on the server (the cookie stops working everywhere) and drop it."""
    session_id = request.cookies.get(COOKIE_NAME)
    if session_id and hasattr(request.app.state, "auth_sessions"):
        await _sessions(request).revoke(session_id)
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="strict")
    return response
