"""Run events: the typed contract (`contract`), the SSE codec (`sse`) and the buses.

Names are loaded on first use, so a process that needs only the contract (the bridge) does not
import the buses and their clients.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentchat.events.bus import EventBus
    from agentchat.events.factory import make_bus
    from agentchat.events.memory import MemoryEventBus
    from agentchat.events.model import (
        TERMINAL_EVENTS,
        BusClosed,
        RunEvent,
        RunFinished,
        StreamInterrupted,
        SubscriberLagged,
        UnknownRun,
        encode_many,
        encode_sse,
    )
    from agentchat.events.redis_bus import RedisEventBus

_WHERE = {
    "EventBus": "bus",
    "make_bus": "factory",
    "MemoryEventBus": "memory",
    "RedisEventBus": "redis_bus",
    **{
        name: "model"
        for name in (
            "TERMINAL_EVENTS",
            "BusClosed",
            "RunEvent",
            "RunFinished",
            "StreamInterrupted",
            "SubscriberLagged",
            "UnknownRun",
            "encode_many",
            "encode_sse",
        )
    },
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'agentchat.events' has no attribute {name!r}")
    return getattr(import_module(f"agentchat.events.{module}"), name)


__all__ = [
    "TERMINAL_EVENTS",
    "BusClosed",
    "EventBus",
    "MemoryEventBus",
    "RedisEventBus",
    "RunEvent",
    "RunFinished",
    "StreamInterrupted",
    "SubscriberLagged",
    "UnknownRun",
    "encode_many",
    "encode_sse",
    "make_bus",
]
