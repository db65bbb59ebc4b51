"""The Redis Streams event bus: any API process publishes, any process follows."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import ResponseError

from agentchat.events.model import (
    TERMINAL_EVENTS,
    BusEvent,
    RunFinished,
    UnknownRun,
    check_terminal_last,
)
from agentchat.events.redis_reader import Feed, StreamReader
from agentchat.events.redis_streams import (
    FINISH_LUA,
    PUBLISH_LUA,
    START,
    StreamId,
    decode_entry,
    encode_payload,
    format_id,
    parse_id,
    state_key,
    stream_key,
)
from agentchat.events.subscription import DEFAULT_QUEUE_SIZE, Subscription, follow
from agentchat.protocol.sse import dump_json

PUBLISH_CHUNK = 500
RANGE_CHUNK = 1_000
DEFAULT_BLOCK_MS = 5_000
PING_TIMEOUT_S = 2.0


@dataclass
class _Position:
    """How far a subscriber's replay has read."""

    entry: StreamId
    last_id: int
    read_any: bool = False
    done: bool = False


class RedisEventBus:
    """Events in `{prefix}run:{<runId>}` streams (entry `N-0` = event N), state in a hash."""

    def __init__(
        self,
        redis: Redis,
        reader_redis: Redis,
        *,
        prefix: str = "agentchat:",
        retention_s: float = 3600.0,
        live_ttl_s: float = 86_400.0,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        block_ms: int = DEFAULT_BLOCK_MS,
        probe_redis: Redis | None = None,
    ) -> None:
        self._redis = redis
        self._reader_redis = reader_redis
        self._probe_redis = probe_redis
        self._prefix = prefix
        self._retention_ms = max(1, int(retention_s * 1000))
        self._live_ttl_ms = max(1, int(live_ttl_s * 1000))
        self._queue_size = queue_size
        self._publish_script = redis.register_script(PUBLISH_LUA)
        self._finish_script = redis.register_script(FINISH_LUA)
        wake_key = f"{prefix}bus:{uuid.uuid4().hex}:wake"
        self._reader = StreamReader(reader_redis, redis, wake_key, block_ms=block_ms)

    @classmethod
    def from_url(cls, url: str, *, max_connections: int = 32, **opts: Any) -> RedisEventBus:
        """Three clients: a bounded pool for commands (callers wait for a free connection
        rather than fail), one connection for the process's blocking reader, and one for
        `ping` (a Redis that stalls is told from a busy pool, and a ping given up on leaves
        the commands' connections alone)."""
        pool = BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=30)
        read_timeout_s = opts.get("block_ms", DEFAULT_BLOCK_MS) / 1000 + 5
        reader = Redis.from_url(url, socket_timeout=read_timeout_s)
        probe = Redis.from_url(
            url, socket_timeout=PING_TIMEOUT_S, socket_connect_timeout=PING_TIMEOUT_S
        )
        return cls(Redis.from_pool(pool), reader, probe_redis=probe, **opts)

    async def register(self, run_id: str, meta: dict[str, Any]) -> None:
        key = state_key(self._prefix, run_id)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, "meta", dump_json(meta))
            pipe.hsetnx(key, "seq", 0)
            pipe.pexpire(key, self._live_ttl_ms)
            await pipe.execute()

    async def publish(self, run_id: str, event: str, data: dict[str, Any]) -> BusEvent:
        (published,) = await self.publish_many(run_id, [(event, data)])
        return published

    async def publish_many(
        self, run_id: str, items: list[tuple[str, dict[str, Any]]]
    ) -> list[BusEvent]:
        check_terminal_last(items)
        if not items:
            return []
        chunks = [items[i : i + PUBLISH_CHUNK] for i in range(0, len(items), PUBLISH_CHUNK)]
        firsts = await self._run_publish(run_id, [self._publish_args(c) for c in chunks])
        return [
            BusEvent(first + i, event, data)
            for first, chunk in zip(firsts, chunks, strict=True)
            for i, (event, data) in enumerate(chunk)
        ]

    def subscribe(self, run_id: str, last_event_id: int = 0) -> AsyncIterator[BusEvent]:
        return self._subscribe(run_id, max(last_event_id, 0))

    async def history(self, run_id: str, after: int = 0) -> list[BusEvent]:
        await self._require_known(run_id)
        key = stream_key(self._prefix, run_id)
        return [e async for _, e in self._range(key, (max(after, 0), 0)) if e is not None]

    async def is_known(self, run_id: str) -> bool:
        return bool(await self._redis.exists(state_key(self._prefix, run_id)))

    async def meta(self, run_id: str) -> dict[str, Any] | None:
        raw = await self._redis.hget(state_key(self._prefix, run_id), "meta")
        return None if raw is None else dict(json.loads(raw))

    async def finish(self, run_id: str) -> None:
        keys = [state_key(self._prefix, run_id), stream_key(self._prefix, run_id)]
        await self._finish_script(keys=keys, args=[self._retention_ms])

    async def ping(self) -> None:
        await (self._probe_redis or self._redis).ping()

    def subscriber_count(self, run_id: str) -> int:
        return self._reader.subscriber_count(stream_key(self._prefix, run_id))

    async def close(self) -> None:
        await self._reader.close()
        await self._redis.aclose()
        await self._reader_redis.aclose()
        if self._probe_redis is not None:
            await self._probe_redis.aclose()

    async def _subscribe(self, run_id: str, after: int) -> AsyncIterator[BusEvent]:
        await self._require_known(run_id)
        key = stream_key(self._prefix, run_id)
        sub = Subscription(self._queue_size)
        # Attach before reading the history: whatever the reader delivers from now on is
        # queued, whatever came before is in the stream; ids dedupe the overlap.
        feed = self._reader.attach(key, sub)
        pos = _Position((after, 0), after)
        try:
            async for event in self._replay(key, pos, None):
                sub.check()
                yield event
            if pos.done:
                return
            async for event in self._catch_up(key, feed, pos):
                sub.check()
                yield event
            if pos.done:
                return
            async for event in follow(sub, pos.last_id):
                yield event
        finally:
            self._reader.detach(feed, sub)

    async def _catch_up(self, key: str, feed: Feed, pos: _Position) -> AsyncIterator[BusEvent]:
        """Start the reader where the replay ended, or read up to where it already is."""
        if not pos.read_any:
            tip, ended = await self._tip(key)
            if tip <= pos.entry and ended is not None:
                pos.done = True
                if tip < pos.entry and isinstance(ended, BusEvent):
                    yield ended  # resumed from past the end: the terminal event, once
                return
            pos.entry = min(pos.entry, tip)
        cursor = await self._reader.start_at(feed, pos.entry)
        if cursor > pos.entry:
            async for event in self._replay(key, pos, cursor):
                yield event

    async def _replay(
        self, key: str, pos: _Position, until: StreamId | None
    ) -> AsyncIterator[BusEvent]:
        async for sid, event in self._range(key, pos.entry, until):
            pos.entry, pos.read_any = sid, True
            if event is None:
                pos.done = True
                return
            pos.last_id = event.id
            yield event
            if event.is_terminal:
                pos.done = True
                return

    async def _range(
        self, key: str, after: StreamId, until: StreamId | None = None
    ) -> AsyncIterator[tuple[StreamId, BusEvent | None]]:
        """Entries after `after` (exclusive) up to `until` (inclusive), in chunks."""
        high = "+" if until is None else format_id(until)
        while True:
            low = f"({format_id(after)}"
            entries: list[Any] = await self._redis.xrange(key, low, high, RANGE_CHUNK) or []
            for raw_id, fields in entries:
                after = parse_id(raw_id)
                yield after, decode_entry(after, fields)
            if len(entries) < RANGE_CHUNK:
                return

    async def _tip(self, key: str) -> tuple[StreamId, BusEvent | bool | None]:
        """The last entry's id, and what ends the run there: its terminal event, True for the
        finish marker, None while the run goes on."""
        last: list[Any] = await self._redis.xrevrange(key, count=1) or []
        if not last:
            return START, None
        sid = parse_id(last[0][0])
        event = decode_entry(sid, last[0][1])
        if event is None:
            return sid, True
        return sid, event if event.is_terminal else None

    async def _require_known(self, run_id: str) -> None:
        if not await self.is_known(run_id):
            raise UnknownRun(run_id)

    def _publish_args(self, chunk: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        args: list[Any] = [self._retention_ms, self._live_ttl_ms]
        for event, data in chunk:
            args += [encode_payload(event, data), "1" if event in TERMINAL_EVENTS else "0"]
        return args

    async def _run_publish(self, run_id: str, calls: list[list[Any]]) -> list[int]:
        """One EVALSHA per chunk: a single call directly (one round trip), several pipelined."""
        keys = [state_key(self._prefix, run_id), stream_key(self._prefix, run_id)]
        try:
            if len(calls) == 1:
                return [int(await self._publish_script(keys=keys, args=calls[0]))]
            async with self._redis.pipeline(transaction=False) as pipe:
                for args in calls:
                    await self._publish_script(keys=keys, args=args, client=pipe)
                return [int(first) for first in await pipe.execute()]
        except ResponseError as exc:
            if "UNKNOWN_RUN" in str(exc):
                raise UnknownRun(run_id) from exc
            if "RUN_FINISHED" in str(exc):
                raise RunFinished("the run has already finished") from exc
            raise
