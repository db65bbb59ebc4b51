"""/api/auth: sign in once with the access token (an HttpOnly, SameSite=Strict cookie), sign
out, and ask whether signing in is needed."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from pydantic import Field

from agentchat.core.deps import SettingsDep
from agentchat.core.errors import Unauthorized
from agentchat.core.schemas import CamelModel, ErrorBody
from agentchat.web.auth import (
    COOKIE_NAME,
    configured_token,
    cookie_value,
    is_authenticated,
    same_secret,
)

router = APIRouter(prefix="/api/auth", tags=["auth"])


class LoginRequest(CamelModel):
    token: str = Field(max_length=4096)


class AuthStatus(CamelModel):
    auth_required: bool
    authenticated: bool


@router.get("/status", operation_id="authStatus")
def auth_status(request: Request, settings: SettingsDep) -> AuthStatus:
    """Public: whether the server needs a token, and whether this request carries it."""
    token = configured_token(settings)
    signed_in = token is None or is_authenticated(request.scope, token)
    return AuthStatus(auth_required=token is not None, authenticated=signed_in)


@router.post(
    "/login",
    operation_id="login",
    responses={401: {"model": ErrorBody, "description": "Wrong token"}},
)
def login(
    body: LoginRequest, request: Request, response: Response, settings: SettingsDep
) -> AuthStatus:
    """Check the token and keep the sign-in in a cookie that scripts cannot read."""
    token = configured_token(settings)
    if token is None:
        return AuthStatus(auth_required=False, authenticated=True)
    if not same_secret(body.token, token):
        raise Unauthorized("That is not this server's access token.")
    response.set_cookie(
        COOKIE_NAME,
        cookie_value(token),
        httponly=True,
        samesite="strict",
        path="/",
        secure=request.url.scheme == "https",
    )
    return AuthStatus(auth_required=True, authenticated=True)


@router.post("/logout", operation_id="logout", status_code=status.HTTP_204_NO_CONTENT)
def logout() -> Response:
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(COOKIE_NAME, path="/", httponly=True, samesite="strict")
    return response
