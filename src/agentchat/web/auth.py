"""The optional bearer token (AGENTCHAT_AUTH_TOKEN): who counts as signed in, and the
middleware that keeps everyone else out of /api."""

from __future__ import annotations

import hashlib
import hmac

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from agentchat.core.settings import Settings
from agentchat.web.asgi import header, send_error

COOKIE_NAME = "agentchat_token"
PUBLIC_API_PATHS = frozenset(
    {"/api/health", "/api/auth/status", "/api/auth/login", "/api/auth/logout"}
)
_COOKIE_CONTEXT = b"agentchat-cookie-v1"


def configured_token(settings: Settings) -> str | None:
    token = settings.auth_token.get_secret_value() if settings.auth_token else ""
    return token or None


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison (bytes, so any character is safe to compare)."""
    return hmac.compare_digest(given.encode(), expected.encode())


def cookie_value(token: str) -> str:
    """What the login cookie holds: derived from the token, so the cookie is not the token."""
    return hmac.new(token.encode(), _COOKIE_CONTEXT, hashlib.sha256).hexdigest()


def is_authenticated(scope: Scope, token: str) -> bool:
    """A matching `Authorization: Bearer` header or login cookie."""
    authorization = header(scope, b"authorization") or ""
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and same_secret(credentials.strip(), token):
        return True
    cookies = cookie_parser(header(scope, b"cookie") or "")
    return same_secret(cookies.get(COOKIE_NAME, ""), cookie_value(token))


def needs_token(path: str) -> bool:
    """Every /api route but health and the auth routes; the page itself holds no data."""
    is_api = path == "/api" or path.startswith("/api/")
    return is_api and path not in PUBLIC_API_PATHS


class AuthMiddleware:
    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        guarded = scope["type"] == "http" and needs_token(scope["path"])
        if guarded and not is_authenticated(scope, self.token):
            challenge = [(b"www-authenticate", b"Bearer")]
            message = "Sign in: this server needs its access token."
            await send_error(send, 401, "unauthorized", message, challenge)
            return
        await self.app(scope, receive, send)
