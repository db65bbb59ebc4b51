"""Which API process drives a run, seen from every process: an owner key per run in Redis
(`{prefix}owner:{runId}`) with a short TTL that the driving process refreshes. A RUNNING answer
whose key is gone lost its process; any process's sweeper then ends it."""

from __future__ import annotations

import os
import socket
import uuid
from typing import Protocol

from redis.asyncio import Redis

OWNER_TTL_S = 10.0
HEARTBEAT_S = 3.0


class RunOwners:
    def __init__(self, redis: Redis, prefix: str = "agentchat:", ttl_s: float = OWNER_TTL_S):
        self._redis = redis
        self._prefix = prefix
        self._ttl_ms = max(1, int(ttl_s * 1000))
        self._mine: set[str] = set()
        self.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    @classmethod
    def from_url(cls, url: str, prefix: str = "agentchat:", **opts: float) -> RunOwners:
        return cls(Redis.from_url(url), prefix, **opts)

    def key(self, run_id: str) -> str:
        return f"{self._prefix}owner:{run_id}"

    async def claim(self, run_id: str) -> None:
        """Take a run before its RUNNING row is committed, so no sweeper sees it unowned."""
        self._mine.add(run_id)
        await self._redis.set(self.key(run_id), self.token, px=self._ttl_ms)

    async def adopt(self, run_id: str) -> bool:
        """Take a run whose owner died (re-attaching it); False when another process took it
        first."""
        taken = await self._redis.set(self.key(run_id), self.token, px=self._ttl_ms, nx=True)
        if taken:
            self._mine.add(run_id)
        return bool(taken)

    async def release(self, run_id: str) -> None:
        self._mine.discard(run_id)
        await self._redis.delete(self.key(run_id))

    async def heartbeat(self) -> None:
        """Refresh the keys of the runs this process drives (re-created if Redis lost them)."""
        if not self._mine:
            return
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id in list(self._mine):
                pipe.set(self.key(run_id), self.token, px=self._ttl_ms)
            await pipe.execute()

    async def owner_of(self, run_id: str) -> str | None:
        """The token of the process that drives the run, None when no live process does."""
        value = await self._redis.get(self.key(run_id))
        return value.decode() if isinstance(value, bytes) else value

    async def alive(self, run_ids: list[str]) -> set[str]:
        """The runs among `run_ids` whose owner process still answers."""
        if not run_ids:
            return set()
        values = await self._redis.mget([self.key(r) for r in run_ids])
        return {r for r, v in zip(run_ids, values, strict=True) if v is not None}

    async def aclose(self) -> None:
        await self._redis.aclose()


class Owners(Protocol):
    """What the run service needs of either kind of owner record (Redis, or file locks)."""

    token: str

    async def claim(self, run_id: str) -> None: ...

    async def adopt(self, run_id: str) -> bool: ...

    async def release(self, run_id: str) -> None: ...

    async def heartbeat(self) -> None: ...

    async def alive(self, run_ids: list[str]) -> set[str]: ...

    async def aclose(self) -> None: ...
