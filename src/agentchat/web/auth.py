"""The optional bearer token (AGENTCHAT_AUTH_TOKEN): who counts as signed in, and the
middleware that keeps everyone else out of /api."""

from __future__ import annotations

import hmac
import math

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from agentchat.core.auth_sessions import FailureThrottle, SessionStore, client_of
from agentchat.core.settings import Settings
from agentchat.protocol.errors import TooManyRequests
from agentchat.web.asgi import header, send_error

COOKIE_NAME = "agentchat_token"
PUBLIC_API_PATHS = frozenset(
    {"/api/health", "/api/auth/status", "/api/auth/login", "/api/auth/logout"}
)


def configured_token(settings: Settings) -> str | None:
    token = settings.auth_token.get_secret_value().strip() if settings.auth_token else ""
    return token or None


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison (bytes, so any character is safe to compare)."""
    return hmac.compare_digest(given.encode(), expected.encode())


async def is_authenticated(scope: Scope, token: str, sessions: SessionStore) -> bool:
    """A matching `Authorization: Bearer` header or a live sign-in session cookie."""
    authorization = header(scope, b"authorization") or ""
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and same_secret(credentials.strip(), token):
        return True
    session_id = cookie_parser(header(scope, b"cookie") or "").get(COOKIE_NAME, "")
    return bool(session_id) and await sessions.valid(session_id)


def presents_credentials(scope: Scope) -> bool:
    """A bearer header or our cookie: a request without either is not a guess."""
    if header(scope, b"authorization"):
        return True
    return COOKIE_NAME in cookie_parser(header(scope, b"cookie") or "")


# FastAPI's API documents: they list every route and schema, so they need the token too.
DOCUMENT_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})


def needs_token(path: str) -> bool:
    """Every /api route but health and the auth routes, and the API documents; the page
    itself holds no data."""
    is_api = path == "/api" or path.startswith("/api/")
    return (is_api and path not in PUBLIC_API_PATHS) or path in DOCUMENT_PATHS


class AuthMiddleware:
    """401 without the token or a session; 429 for a client whose failures ran out."""

    def __init__(
        self, app: ASGIApp, token: str, sessions: SessionStore, throttle: FailureThrottle
    ) -> None:
        self.app = app
        self.token = token
        self.sessions = sessions
        self.throttle = throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not needs_token(scope["path"]):
            await self.app(scope, receive, send)
            return
        client = client_of(scope)
        wait = self.throttle.wait_s(client)
        if wait > 0:
            await send_throttled(send, wait)
            return
        if not await is_authenticated(scope, self.token, self.sessions):
            if presents_credentials(scope):
                self.throttle.failed(client)
            challenge = [(b"www-authenticate", b"Bearer")]
            message = "Sign in: this server needs its access token."
            await send_error(send, 401, "unauthorized", message, challenge)
            return
        await self.app(scope, receive, send)


async def send_throttled(send: Send, wait_s: float) -> None:
    retry = str(max(1, math.ceil(wait_s))).encode()
    message = "Too many failed sign-in attempts from this address; try again later."
    await send_error(send, 429, TooManyRequests.code, message, [(b"retry-after", retry)])
