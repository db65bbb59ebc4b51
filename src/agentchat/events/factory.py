"""Pick the bus: Redis Streams when a URL is configured, else in-process."""

from __future__ import annotations

from typing import Any

from agentchat.events.bus import EventBus
from agentchat.events.in_process import InProcessEventBus
from agentchat.events.redis_bus import RedisEventBus


def make_bus(redis_url: str | None, **opts: Any) -> EventBus:
    """`opts` go to the bus: retention_s, queue_size, and max_finished_runs (in process) or
    prefix, live_ttl_s, block_ms (Redis)."""
    if redis_url:
        return RedisEventBus.from_url(redis_url, **opts)
    return InProcessEventBus(**opts)
