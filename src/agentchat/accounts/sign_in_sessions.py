"""Sign-in sessions kept on the server, and the throttle on failed authentication.

A sign-in issues a random session id (the cookie); the server keeps only its SHA-256 with an
expiry, so logout revokes it and it ends by itself. One process keeps them in memory; with
Redis (several API processes) they live in Redis so every process sees the same sessions.
A session belongs to the token it was signed in with: its Redis key is derived from the id
and from the token, so a server restarted with another token (a rotation after a leak) knows
none of the old sessions, and two deployments with different tokens on one Redis never share
one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from agentchat.core.settings import Settings
from agentchat.events.redis_expiring_keys import RedisExpiringKeys

_MAX_KEYS = 10_000


def _digest(session_id: str, token: str = "") -> str:
    tag = hmac.new(token.encode(), b"agentchat sign-in session", hashlib.sha256).hexdigest()
    return hashlib.sha256(f"{tag}:{session_id}".encode()).hexdigest()


class SessionStore(Protocol):
    async def create(self) -> str:
        """A new session id, valid for the store's lifetime."""
        ...

    async def valid(self, session_id: str) -> bool: ...

    async def revoke(self, session_id: str) -> None: ...


class MemorySessions:
    def __init__(self, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self.clock = clock
        self._expiry: dict[str, float] = {}

    async def create(self) -> str:
        session_id = secrets.token_urlsafe(32)
        now = self.clock()
        if len(self._expiry) >= _MAX_KEYS:
            self._expiry = {k: t for k, t in self._expiry.items() if t > now}
        self._expiry[_digest(session_id)] = now + self.ttl_s
        return session_id

    async def valid(self, session_id: str) -> bool:
        expiry = self._expiry.get(_digest(session_id)) if session_id else None
        return expiry is not None and expiry > self.clock()

    async def revoke(self, session_id: str) -> None:
        self._expiry.pop(_digest(session_id), None)


class RedisSessions:
    def __init__(self, url: str, prefix: str, ttl_s: float, token: str = "") -> None:
        self.keys = RedisExpiringKeys(url, f"{prefix}auth-session:", ttl_s)
        self.token = token

    async def create(self) -> str:
        session_id = secrets.token_urlsafe(32)
        await self.keys.add(_digest(session_id, self.token))
        return session_id

    async def valid(self, session_id: str) -> bool:
        return bool(session_id) and await self.keys.has(_digest(session_id, self.token))

    async def revoke(self, session_id: str) -> None:
        await self.keys.remove(_digest(session_id, self.token))


class FailureThrottle:
    """`per_minute` failed attempts per client, refilled continuously; 0 = no limit."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.refill_per_s = per_minute / 60.0
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def wait_s(self, client: str) -> float:
        """0 when `client` may try now, else the seconds until it may."""
        if self.capacity <= 0:
            return 0.0
        tokens = self._tokens(client, self.clock())
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.refill_per_s

    def failed(self, client: str) -> None:
        if self.capacity <= 0:
            return
        now = self.clock()
        if len(self._buckets) >= _MAX_KEYS:
            self._buckets = {
                k: v for k, v in self._buckets.items() if self._tokens(k, now) < self.capacity
            }
        self._buckets[client] = (max(self._tokens(client, now) - 1.0, 0.0), now)

    def _tokens(self, client: str, now: float) -> float:
        tokens, updated = self._buckets.get(client, (self.capacity, now))
        return min(self.capacity, tokens + (now - updated) * self.refill_per_s)


def make_sessions(
    redis_url: str | None, prefix: str, ttl_s: float, token: str = ""
) -> SessionStore:
    """`token`: the access token the sessions are signed in with (Redis keys depend on it)."""
    if redis_url:
        return RedisSessions(redis_url, prefix, ttl_s, token)
    return MemorySessions(ttl_s)


def client_of(scope: dict[str, object] | object) -> str:
    client = scope.get("client") if isinstance(scope, dict) else None
    return str(client[0]) if isinstance(client, tuple | list) and client else "unknown"


def install_auth_state(app: Any, settings: Settings) -> None:
    """The app's session store and failure throttle, shared by the middleware and routes."""
    ttl_s = settings.session_ttl_hours * 3600
    token = settings.auth_token.get_secret_value().strip() if settings.auth_token else ""
    app.state.auth_sessions = make_sessions(settings.redis_url, settings.redis_prefix, ttl_s, token)
    app.state.auth_throttle = FailureThrottle(settings.auth_failures_per_minute)
