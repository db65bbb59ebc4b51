"""The sign-in cookie of accounts: HttpOnly (scripts cannot read it), SameSite=Strict (no
other site's page sends it), Secure over HTTPS."""

from __future__ import annotations

from fastapi import Request, Response

SESSION_COOKIE = "agentchat_session"


def set_session_cookie(response: Response, request: Request, token: str, max_age_s: int) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=max_age_s,
        httponly=True,
        samesite="strict",
        path="/",
        secure=request.url.scheme == "https",
    )


def drop_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
