"""Who a request acts for, and the middleware that keeps everyone else out of /api.

Without accounts: the optional bearer token (AGENTCHAT_AUTH_TOKEN, or a sign-in session made
with it); whoever gets in is the server's one person (`SINGLE`). With accounts (once the first
one exists): a user's sign-in session, in the `agentchat_session` cookie or as a bearer token;
the token stops working then. Either way the request's `Principal` is put in its state, where
the routes read it (agentchat.principal)."""

from __future__ import annotations

import hmac
import math

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from agentchat.accounts.audit import Origin
from agentchat.accounts.cookies import SESSION_COOKIE
from agentchat.accounts.gate import AccountsGate
from agentchat.accounts.live import cut_off
from agentchat.accounts.sign_in_sessions import FailureThrottle, SessionStore, client_of
from agentchat.principal import SINGLE, STATE_KEY, Principal
from agentchat.protocol.errors import TooManyRequests
from agentchat.web.asgi import header, send_error

COOKIE_NAME = "agentchat_token"
PUBLIC_API_PATHS = frozenset(
    {"/api/health", "/api/auth/status", "/api/auth/login", "/api/auth/logout"}
)
# With accounts also: asking for an account, single sign-on, and opening an invitation.
PUBLIC_ACCOUNT_PATHS = PUBLIC_API_PATHS | {
    "/api/auth/signup",
    "/api/auth/oidc/start",
    "/api/auth/oidc/callback",
}
PUBLIC_ACCOUNT_PREFIX = "/api/auth/invitations/"
TOKEN_NEEDED = "Sign in: this server needs its access token."
SIGN_IN_NEEDED = "Sign in first."


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
    """A bearer header or one of our cookies: a request without either is not a guess."""
    if header(scope, b"authorization"):
        return True
    cookies = cookie_parser(header(scope, b"cookie") or "")
    return COOKIE_NAME in cookies or SESSION_COOKIE in cookies


# FastAPI's API documents: they list every route and schema, so they need the token too.
DOCUMENT_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})


def needs_token(path: str) -> bool:
    """Every /api route but health and the auth routes, and the API documents; the page
    itself holds no data."""
    is_api = path == "/api" or path.startswith("/api/")
    return (is_api and path not in PUBLIC_API_PATHS) or path in DOCUMENT_PATHS


def session_token(scope: Scope) -> str | None:
    """An account's sign-in token: the session cookie, or `Authorization: Bearer`."""
    cookie = cookie_parser(header(scope, b"cookie") or "").get(SESSION_COOKIE, "")
    if cookie:
        return cookie
    scheme, _, credentials = (header(scope, b"authorization") or "").partition(" ")
    return (credentials.strip() or None) if scheme.lower() == "bearer" else None


def origin_of(scope: Scope) -> Origin:
    agent = header(scope, b"user-agent")
    return Origin(ip=client_of(scope), user_agent=agent[:255] if agent else None)


def public_with_accounts(path: str) -> bool:
    return path in PUBLIC_ACCOUNT_PATHS or path.startswith(PUBLIC_ACCOUNT_PREFIX)


def put_principal(scope: Scope, principal: Principal) -> None:
    scope.setdefault("state", {})[STATE_KEY] = principal


class AuthMiddleware:
    """401 without the token or a session; 429 for a client whose failures ran out. With
    accounts, a GET (a stream) ends as soon as its user's sessions are ended (accounts.live)."""

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        sessions: SessionStore,
        throttle: FailureThrottle,
        gate: AccountsGate,
    ) -> None:
        self.app = app
        self.token = token
        self.sessions = sessions
        self.throttle = throttle
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
        elif await self.gate.accounts_on():
            await self._with_accounts(scope, receive, send)
        else:
            await self._single(scope, receive, send)

    async def _single(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token and needs_token(scope["path"]):
            wait = self.throttle.wait_s(client_of(scope))
            if wait > 0:
                await send_throttled(send, wait)
                return
            if not await is_authenticated(scope, self.token, self.sessions):
                await self._refuse(scope, send, TOKEN_NEEDED)
                return
        put_principal(scope, SINGLE)
        await self.app(scope, receive, send)

    async def _with_accounts(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = session_token(scope)
        found = await self.gate.who(token) if token else None
        if found is None:
            path = scope["path"]
            if needs_token(path) and not public_with_accounts(path):
                wait = self.throttle.wait_s(client_of(scope))
                if wait > 0:
                    await send_throttled(send, wait)
                else:
                    await self._refuse(scope, send, SIGN_IN_NEEDED)
                return
            await self.app(scope, receive, send)  # public: acts for nobody
            return
        put_principal(scope, found.principal)
        if scope["method"] != "GET" or found.principal.user_id is None:
            await self.app(scope, receive, send)
            return
        with self.gate.live.holding(found.principal.user_id, found.digest) as cut:
            await self.app(scope, cut_off(receive, cut), send)

    async def _refuse(self, scope: Scope, send: Send, message: str) -> None:
        """401; a request that presented credentials counts as a failure of its client."""
        if presents_credentials(scope):
            self.throttle.failed(client_of(scope))
        challenge = [(b"www-authenticate", b"Bearer")]
        await send_error(send, 401, "unauthorized", message, challenge)


async def send_throttled(send: Send, wait_s: float) -> None:
    retry = str(max(1, math.ceil(wait_s))).encode()
    message = "Too many failed sign-in attempts from this address; try again later."
    await send_error(send, 429, TooManyRequests.code, message, [(b"retry-after", retry)])
