"""One blocking XREAD per process, fanned out to the local subscribers of every run."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from agentchat.events.redis_streams import StreamId, decode_entry, format_id, parse_id
from agentchat.events.subscription import Subscription

log = logging.getLogger(__name__)

WAKE_TTL_MS = 3_600_000


@dataclass(eq=False)
class Feed:
    """A stream followed for local subscribers; `cursor` is the last entry delivered."""

    key: str
    cursor: StreamId | None = None
    subscribers: set[Subscription] = field(default_factory=set)


class StreamReader:
    """Follows the streams that have local subscribers, resuming from the last delivered id.

    A new stream joins the blocking read through a per-reader wake stream, so it never waits
    for the block timeout.
    """

    def __init__(
        self,
        reader: Redis,
        writer: Redis,
        wake_key: str,
        *,
        block_ms: int = 5_000,
        count: int = 1_000,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._wake_key = wake_key
        self._block_ms = block_ms
        self._count = count
        self._feeds: dict[str, Feed] = {}
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def attach(self, key: str, sub: Subscription) -> Feed:
        """Add a subscriber: from now on it gets every entry after the feed's cursor."""
        feed = self._feeds.get(key)
        if feed is None:
            feed = self._feeds[key] = Feed(key)
        feed.subscribers.add(sub)
        if self._task is None and not self._closed:
            self._task = asyncio.create_task(self._run(), name="event-bus-reader")
        return feed

    def detach(self, feed: Feed, sub: Subscription) -> None:
        feed.subscribers.discard(sub)
        if not feed.subscribers and self._feeds.get(feed.key) is feed:
            del self._feeds[feed.key]

    async def start_at(self, feed: Feed, position: StreamId) -> StreamId:
        """Start a new feed at `position` (an entry the caller has read); the cursor now."""
        if feed.cursor is not None:
            return feed.cursor
        feed.cursor = position
        await self._wake()
        return position

    def subscriber_count(self, key: str) -> int:
        feed = self._feeds.get(key)
        return 0 if feed is None else len(feed.subscribers)

    async def close(self) -> None:
        """Stop the reader (woken so it need not wait out its block) and drop subscribers."""
        self._closed = True
        if self._task is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._wake()
            done, _ = await asyncio.wait([self._task], timeout=1.0)
            if not done:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
            self._task = None
        for feed in self._feeds.values():
            for sub in feed.subscribers:
                sub.interrupt()
        self._feeds.clear()
        with contextlib.suppress(RedisError, OSError):
            await self._writer.delete(self._wake_key)

    async def _wake(self) -> None:
        async with self._writer.pipeline(transaction=False) as pipe:
            pipe.xadd(self._wake_key, {"w": "1"}, maxlen=16, approximate=False)
            pipe.pexpire(self._wake_key, WAKE_TTL_MS)
            await pipe.execute()

    async def _run(self) -> None:
        wake_cursor = "0-0"
        failures = 0
        while not self._closed:
            streams: dict[Any, Any] = {
                k: format_id(f.cursor) for k, f in self._feeds.items() if f.cursor is not None
            }
            streams[self._wake_key] = wake_cursor
            try:
                reply = await self._reader.xread(streams, count=self._count, block=self._block_ms)
                failures = 0
            except (RedisError, OSError):
                failures += 1
                log.warning(
                    "event bus reader: Redis read failed (%d in a row)", failures, exc_info=True
                )
                await asyncio.sleep(min(0.05 * 2**failures, 2.0))
                continue
            for raw_key, entries in _stream_items(reply):
                key = raw_key.decode()
                if key == self._wake_key:
                    wake_cursor = entries[-1][0].decode()
                else:
                    self._deliver(key, entries)

    def _deliver(self, key: str, entries: list[Any]) -> None:
        feed = self._feeds.get(key)
        if feed is None or feed.cursor is None:
            return
        for raw_id, fields in entries:
            sid = parse_id(raw_id)
            if sid <= feed.cursor:
                continue
            feed.cursor = sid
            try:
                event = decode_entry(sid, fields)
            except (KeyError, ValueError):
                log.exception("event bus reader: skipping malformed entry %s of %s", sid, key)
                continue
            if event is not None:
                lagging = [sub for sub in feed.subscribers if not sub.offer(event)]
                feed.subscribers.difference_update(lagging)
            if event is None or event.is_terminal:
                self._end_feed(feed)
                return
        if not feed.subscribers:
            del self._feeds[key]

    def _end_feed(self, feed: Feed) -> None:
        for sub in feed.subscribers:
            sub.end()
        feed.subscribers.clear()
        del self._feeds[feed.key]


def _stream_items(reply: Any) -> list[Any]:
    """XREAD's reply as [(key, entries)]: a list under RESP2, {key: [entries]} under RESP3."""
    if isinstance(reply, dict):
        return [(key, value[0] if value else []) for key, value in reply.items()]
    return list(reply or [])
