"""Revocations told to every API process over Redis (several processes share one database):
a process that ends sessions or disables a user publishes it, each process drops what it
cached and cuts the open streams it serves. Without Redis there is one process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
RECONNECT_S = 1.0

Handler = Callable[[dict[str, Any]], None]


class RevocationChannel:
    def __init__(self, url: str, prefix: str) -> None:
        self._redis = Redis.from_url(url)
        self.channel = f"{prefix}accounts:revoked"
        self._task: asyncio.Task[None] | None = None

    async def publish(self, message: dict[str, Any]) -> None:
        try:
            await self._redis.publish(self.channel, json.dumps(message))
        except RedisError as exc:  # the other processes' caches expire within seconds
            log.warning("could not tell the other processes of a revocation: %s", exc)

    async def start(self, handler: Handler) -> None:
        """Subscribed on return; each message is handed to `handler`."""
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self.channel)
        self._task = asyncio.create_task(self._listen(pubsub, handler), name="revocations")

    async def _listen(self, pubsub: Any, handler: Handler) -> None:
        try:
            while True:
                try:
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            handler(json.loads(message["data"]))
                except RedisError as exc:
                    log.warning("revocation channel lost (%s); listening again", exc)
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
