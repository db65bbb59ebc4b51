"""Keys in Redis that stand for themselves and end by themselves: set with a lifetime, asked
whether they exist, deleted. The token sign-ins' session store keeps its sessions here when
several API processes share one Redis (`agentchat.accounts.sign_in_sessions`)."""

from __future__ import annotations

import math

from redis.asyncio import Redis


class RedisExpiringKeys:
    def __init__(self, url: str, prefix: str, ttl_s: float) -> None:
        self.redis = Redis.from_url(url)
        self.prefix = prefix
        self.ttl_s = max(1, math.ceil(ttl_s))

    async def add(self, key: str) -> None:
        await self.redis.set(self.prefix + key, b"1", ex=self.ttl_s)

    async def has(self, key: str) -> bool:
        return bool(await self.redis.exists(self.prefix + key))

    async def remove(self, key: str) -> None:
        await self.redis.delete(self.prefix + key)
