"""Which API process drives a run, seen from every process: an owner key per run in Redis
(`{prefix}owner:{runId}`) with a short TTL that the driving process refreshes, and the bridge
the run is on (`{prefix}bridge:{runId}`, kept until the run ends). A RUNNING answer whose key is
gone lost its process; a sweeper that can ask its bridge then re-attaches or ends it.

The driving process keeps its runs through a Redis outage (stalled, restarted empty): its
heartbeat writes both keys again once Redis answers."""

from __future__ import annotations

import os
import socket
import uuid
from typing import Protocol

from redis.asyncio import Redis

OWNER_TTL_S = 10.0
HEARTBEAT_S = 3.0
PLACE_TTL_MS = 86_400_000  # a run's bridge record outlives its owner key (the sweepers read it)


class RunOwners:
    def __init__(self, redis: Redis, prefix: str = "agentchat:", ttl_s: float = OWNER_TTL_S):
        self._redis = redis
        self._prefix = prefix
        self._ttl_ms = max(1, int(ttl_s * 1000))
        self._mine: dict[str, str | None] = {}  # run id -> the URL of its bridge
        self.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    @classmethod
    def from_url(cls, url: str, prefix: str = "agentchat:", **opts: float) -> RunOwners:
        return cls(Redis.from_url(url), prefix, **opts)

    def key(self, run_id: str) -> str:
        return f"{self._prefix}owner:{run_id}"

    def bridge_key(self, run_id: str) -> str:
        return f"{self._prefix}bridge:{run_id}"

    async def claim(self, run_id: str) -> None:
        """Take a run before its RUNNING row is committed, so no sweeper sees it unowned."""
        self._mine[run_id] = None
        await self._redis.set(self.key(run_id), self.token, px=self._ttl_ms)

    async def place(self, run_id: str, bridge_url: str) -> None:
        """Record the bridge that holds a run of ours, for the other processes' sweepers."""
        if run_id in self._mine:
            self._mine[run_id] = bridge_url
            await self._redis.set(self.bridge_key(run_id), bridge_url, px=PLACE_TTL_MS)

    async def adopt(self, run_id: str) -> bool:
        """Take a run whose owner died (re-attaching it); False when another process took it
        first."""
        taken = await self._redis.set(self.key(run_id), self.token, px=self._ttl_ms, nx=True)
        if taken:
            self._mine[run_id] = None
        return bool(taken)

    async def release(self, run_id: str) -> None:
        self._mine.pop(run_id, None)
        await self._redis.delete(self.key(run_id), self.bridge_key(run_id))

    async def heartbeat(self) -> None:
        """Refresh the keys of the runs this process drives (re-created if Redis lost them)."""
        if not self._mine:
            return
        async with self._redis.pipeline(transaction=False) as pipe:
            for run_id, bridge_url in list(self._mine.items()):
                pipe.set(self.key(run_id), self.token, px=self._ttl_ms)
                if bridge_url is not None:
                    pipe.set(self.bridge_key(run_id), bridge_url, px=PLACE_TTL_MS)
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

    async def bridges_of(self, run_ids: list[str]) -> dict[str, str] | None:
        """The bridge each run was last recorded on (runs with no record left out)."""
        if not run_ids:
            return {}
        values = await self._redis.mget([self.bridge_key(r) for r in run_ids])
        return {
            r: v.decode() if isinstance(v, bytes) else str(v)
            for r, v in zip(run_ids, values, strict=True)
            if v is not None
        }

    async def aclose(self) -> None:
        await self._redis.aclose()


class Owners(Protocol):
    """What the run service needs of either kind of owner record (Redis, or file locks)."""

    token: str

    async def claim(self, run_id: str) -> None: ...

    async def adopt(self, run_id: str) -> bool: ...

    async def place(self, run_id: str, bridge_url: str) -> None: ...

    async def bridges_of(self, run_ids: list[str]) -> dict[str, str] | None:
        """Where each run's bridge was recorded; None when this kind of record keeps no such
        thing because every process that shares it reaches the same bridges."""
        ...

    async def release(self, run_id: str) -> None: ...

    async def heartbeat(self) -> None: ...

    async def alive(self, run_ids: list[str]) -> set[str]: ...

    async def aclose(self) -> None: ...
