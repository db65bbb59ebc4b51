"""Run starts (and sign-in attempts and sign-ups) per client IP: a token bucket in memory,
429 + Retry-After. With accounts a signed-in person's run starts are counted per person
instead (people behind one address, a company's proxy say, do not share one bucket)."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from agentchat.principal import STATE_KEY, Principal
from agentchat.protocol.errors import TooManyRequests
from agentchat.web.asgi import send_error

LIMITED_POSTS = (
    (re.compile(r"/api/chat/sessions/[^/]+/runs"), "run"),
    (re.compile(r"/api/chat/messages/[^/]+/regenerate"), "run"),
    (re.compile(r"/api/auth/login"), "login"),
    # Each new account costs an argon2 hash and a row: asked for per address, like sign-ins.
    (re.compile(r"/api/auth/signup"), "signup"),
    (re.compile(r"/api/auth/invitations/[^/]+/accept"), "signup"),
    (re.compile(r"/api/models/[^/]+/test"), "model_test"),
)
_MAX_KEYS = 10_000


class TokenBucket:
    """`per_minute` tokens per key, refilled continuously; a burst may spend them all."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.refill_per_s = per_minute / 60.0
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """Spend one token: 0.0 when allowed, else the seconds until one is back."""
        now = self.clock()
        tokens = self._tokens(key, now)
        if tokens < 1.0:
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.refill_per_s
        self._buckets[key] = (tokens - 1.0, now)
        if len(self._buckets) > _MAX_KEYS:
            self._forget_full(now)
        return 0.0

    def _tokens(self, key: str, now: float) -> float:
        tokens, updated = self._buckets.get(key, (self.capacity, now))
        return min(self.capacity, tokens + (now - updated) * self.refill_per_s)

    def _forget_full(self, now: float) -> None:
        full = [k for k in self._buckets if self._tokens(k, now) >= self.capacity]
        for key in full:
            del self._buckets[key]


def limited_kind(scope: Scope) -> str | None:
    """Which bucket a request draws from, or None when it is not limited."""
    if scope["method"] != "POST":
        return None
    path = scope["path"]
    return next((kind for pattern, kind in LIMITED_POSTS if pattern.fullmatch(path)), None)


def _who(scope: Scope) -> str:
    principal = scope.get("state", {}).get(STATE_KEY)
    if isinstance(principal, Principal) and principal.user_id is not None:
        return f"user-{principal.user_id}"
    client = scope.get("client") or ("unknown", 0)
    return str(client[0])


class RateLimitMiddleware:
    def __init__(self, app: ASGIApp, per_minute: int) -> None:
        self.app = app
        self.bucket = TokenBucket(per_minute) if per_minute > 0 else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = limited_kind(scope) if scope["type"] == "http" and self.bucket else None
        if kind is None or self.bucket is None:
            await self.app(scope, receive, send)
            return
        wait = self.bucket.take(f"{kind}:{_who(scope)}")
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        retry = str(max(1, math.ceil(wait))).encode()
        message = "Too many requests from this address; try again in a moment."
        await send_error(send, 429, TooManyRequests.code, message, [(b"retry-after", retry)])
