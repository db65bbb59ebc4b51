"""A message told to every API process (several processes share one database): the accounts
gate tells the others of ended sessions and disabled users, so each drops what it cached and
cuts the streams it serves. Over Redis pub/sub (`RedisBroadcast`); one process alone has
nobody to tell (`NoBroadcast`). The cluster (`agentchat.runs.cluster.kinds`) picks one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
RECONNECT_S = 1.0

Handler = Callable[[dict[str, Any]], None]


class Broadcast(Protocol):
    async def publish(self, message: dict[str, Any]) -> None:
        """Tell the other processes (best effort: a failure is logged)."""
        ...

    async def start(self, handler: Handler) -> None:
        """Subscribed on return; each message (this process's own too) goes to `handler`."""
        ...

    async def aclose(self) -> None: ...


class NoBroadcast:
    """One API process: nobody else to tell."""

    async def publish(self, message: dict[str, Any]) -> None:
        return None

    async def start(self, handler: Handler) -> None:
        return None

    async def aclose(self) -> None:
        return None


class RedisBroadcast:
    def __init__(self, url: str, channel: str) -> None:
        self._redis = Redis.from_url(url)
        self.channel = channel
        self._task: asyncio.Task[None] | None = None

    async def publish(self, message: dict[str, Any]) -> None:
        try:
            await self._redis.publish(self.channel, json.dumps(message))
        except RedisError as exc:  # the other processes' caches expire within seconds
            log.warning("could not tell the other processes on %s: %s", self.channel, exc)

    async def start(self, handler: Handler) -> None:
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self.channel)
        self._task = asyncio.create_task(self._listen(pubsub, handler), name=self.channel)

    async def _listen(self, pubsub: Any, handler: Handler) -> None:
        try:
            while True:
                try:
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            handler(json.loads(message["data"]))
                except RedisError as exc:
                    log.warning("channel %s lost (%s); listening again", self.channel, exc)
                    await asyncio.sleep(RECONNECT_S)
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._redis.aclose()
