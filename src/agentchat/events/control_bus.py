"""Requests to one API process (or to all of them) and their replies, over Redis: the channel
that carries steering to the process that drives a run.

A request is PUBLISHed on `{prefix}control:{token}` (one process, named by its owner token) or
`{prefix}control:all`. PUBLISH answers how many processes listen, so a request to a process
that is gone is known at once. Each reply is pushed on the request's `replyTo` list, which the
caller pops with a timeout: a reply that comes before the caller waits is not lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
REPLY_TTL_S = 60
RECONNECT_S = 1.0


class NoListener(Exception):
    """No process listens on the channel: the addressee is gone."""


class ControlBus:
    def __init__(self, redis: Redis, prefix: str, token: str) -> None:
        self._redis = redis
        self._prefix = prefix
        self.token = token
        self._listener: asyncio.Task[None] | None = None
        self._handling: set[asyncio.Task[None]] = set()

    @classmethod
    def from_url(cls, url: str, prefix: str, token: str) -> ControlBus:
        return cls(Redis.from_url(url), prefix, token)

    def channel(self, token: str) -> str:
        return f"{self._prefix}control:{token}"

    async def request(self, token: str, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send `body` to the process `token` and return its reply. Raises NoListener when
        that process does not listen, TimeoutError when it does not reply within `timeout`."""
        replies = await self._send(self.channel(token), body, 1, timeout)
        if not replies:
            raise TimeoutError(f"no reply from {token} within {timeout:.1f} s")
        return replies[0]

    async def broadcast(self, body: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        """Send `body` to every other process; the replies that came within `timeout`."""
        try:
            return await self._send(self.channel("all"), body, None, timeout)
        except NoListener:
            return []

    async def _send(
        self, channel: str, body: dict[str, Any], expected: int | None, timeout: float
    ) -> list[dict[str, Any]]:
        reply_to = f"{self._prefix}control-reply:{uuid.uuid4().hex}"
        message = json.dumps({**body, "replyTo": reply_to, "from": self.token})
        listeners = int(await self._redis.publish(channel, message))
        if listeners == 0:
            raise NoListener(channel)
        if expected is None:  # a broadcast: every listener but this process replies
            expected = listeners - 1
        if expected <= 0:
            return []
        try:
            return await self._collect(reply_to, expected, timeout)
        finally:
            await self._redis.delete(reply_to)

    async def _collect(self, reply_to: str, expected: int, timeout: float) -> list[dict[str, Any]]:
        replies: list[dict[str, Any]] = []
        deadline = asyncio.get_running_loop().time() + timeout
        while len(replies) < expected:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                break
            popped = await self._redis.blpop([reply_to], timeout=max(left, 0.01))
            if popped is None:
                break
            replies.append(json.loads(popped[1]))
        return replies

    async def start(self, handler: Handler) -> None:
        """Listen on this process's channel and the broadcast one (subscribed on return); each
        request is handled in a task of its own (a slow stop never holds up the next one)."""
        if self._listener is not None:
            return
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe(self.channel(self.token), self.channel("all"))
        self._listener = asyncio.create_task(self._listen(pubsub, handler), name="control-bus")

    async def _listen(self, pubsub: PubSub, handler: Handler) -> None:
        """Dispatch requests until closed; a lost connection is made again (and the channels
        subscribed again by redis-py) after a pause."""
        try:
            while True:
                try:
                    async for message in pubsub.listen():
                        self._dispatch(handler, message)
                except RedisError as exc:
                    log.warning("control channel lost (%s); listening again", exc)
                    await asyncio.sleep(RECONNECT_S)
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    def _dispatch(self, handler: Handler, message: dict[str, Any]) -> None:
        if message.get("type") != "message":
            return
        body = json.loads(message["data"])
        if body.get("from") == self.token:
            return  # our own broadcast
        task = asyncio.create_task(self._handle(handler, body))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)

    async def _handle(self, handler: Handler, body: dict[str, Any]) -> None:
        try:
            reply = await handler(body)
        except Exception as exc:  # the caller gets an answer rather than a timeout
            log.exception("control request %s failed", body.get("op"))
            reply = {"ok": False, "status": 502, "code": "bad_gateway", "message": str(exc)}
        reply_to = str(body["replyTo"])
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.rpush(reply_to, json.dumps(reply))
                pipe.expire(reply_to, REPLY_TTL_S)
                await pipe.execute()
        except RedisError as exc:  # the caller times out and falls back
            log.warning("could not reply to %s: %s", body.get("op"), exc)

    async def aclose(self) -> None:
        tasks = [t for t in (self._listener, *self._handling) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._listener = None
        await self._redis.aclose()
