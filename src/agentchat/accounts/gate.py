"""The accounts side of every request: whether accounts are on, and who a sign-in token is.

Accounts are on once the first account exists (created here, by another process or by
`agentchat users add`): while off, the database is asked again at most once a MODE_RECHECK_S;
once on they stay on. A token's session is read from the database and kept for CACHE_S; ending
sessions here drops them from the cache at once, cuts the streams they hold open, and tells the
other API processes (the cluster's broadcast: Redis, or nobody) to do the same."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

import anyio
from sqlalchemy.orm import Session

from agentchat.accounts import sessions
from agentchat.accounts.live import LiveRequests
from agentchat.accounts.users import accounts_exist
from agentchat.core.clock import utcnow
from agentchat.core.database import Database
from agentchat.events.broadcast import Broadcast, NoBroadcast

CACHE_S = 5.0
MODE_RECHECK_S = 1.0
_MAX_CACHED = 10_000


class AccountsGate:
    def __init__(
        self, database: Database | None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """`database` None: an app without one (a test's bare app) never has accounts."""
        self.database = database
        self.clock = clock
        self.live = LiveRequests()
        self.channel: Broadcast = NoBroadcast()  # the cluster's, from `listen`
        self._on = False
        self._mode_checked = -MODE_RECHECK_S
        self._mode_lock = asyncio.Lock()
        self._cache: dict[str, tuple[sessions.Found, float]] = {}

    async def accounts_on(self) -> bool:
        if self._on or self.database is None or self.clock() - self._mode_checked < MODE_RECHECK_S:
            return self._on
        async with self._mode_lock:
            if not self._on and self.clock() - self._mode_checked >= MODE_RECHECK_S:
                self._on = await self._in_thread(accounts_exist)
                self._mode_checked = self.clock()
        return self._on

    def turned_on(self) -> None:
        """This process created the first account."""
        self._on = True

    async def who(self, token: str) -> sessions.Found | None:
        """The session of a token, or None (unknown, expired, its user disabled or pending)."""
        token_digest = sessions.digest(token)
        cached = self._cache.get(token_digest)
        if cached is not None and cached[1] > self.clock():
            return cached[0]
        found = await self._in_thread(lambda db: _find_and_touch(db, token_digest))
        if len(self._cache) >= _MAX_CACHED:
            self._cache.clear()
        if found is not None:
            self._cache[token_digest] = (found, self.clock() + CACHE_S)
        else:
            self._cache.pop(token_digest, None)
        return found

    async def ended(self, *, user_id: int | None = None, digests: Iterable[str] = ()) -> None:
        """Sessions were ended (or a user disabled or deleted) and the transaction committed:
        forget them here and in every other API process, and cut their streams."""
        message: dict[str, Any] = {"user": user_id, "digests": list(digests)}
        self.forget(message)
        await self.channel.publish(message)

    def forget(self, message: dict[str, Any]) -> None:
        user_id = message.get("user")
        digests = set(message.get("digests") or ())
        if message.get("accountsOn"):
            self._on = True
        if user_id is not None:
            digests.update(
                d for d, (found, _) in self._cache.items() if found.principal.user_id == user_id
            )
        for token_digest in digests:
            self._cache.pop(token_digest, None)
        self.live.cut(user_id, digests)

    async def listen(self, channel: Broadcast) -> None:
        """Hear the other processes' revocations (the channel is the cluster's to close)."""
        self.channel = channel
        await channel.start(self.forget)

    async def announce_on(self) -> None:
        self.turned_on()
        await self.channel.publish({"accountsOn": True})

    async def _in_thread(self, work: Callable[[Session], Any]) -> Any:
        database = self.database
        assert database is not None

        def run() -> Any:
            with database.session() as db:
                return work(db)

        return await anyio.to_thread.run_sync(run)


def _find_and_touch(db: Session, token_digest: str) -> sessions.Found | None:
    found = sessions.find(db, token_digest)
    if found is not None and utcnow() - found.last_seen_at > sessions.TOUCH_EVERY:
        sessions.touch(db, found.principal.session_id or 0)
    return found
