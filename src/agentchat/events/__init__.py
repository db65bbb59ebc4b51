"""The run event buses (in memory, Redis) that carry the contract's events
(`agentchat.protocol.events`) from the process that drives a run to every stream reading it."""

from __future__ import annotations

from agentchat.events.bus import EventBus
from agentchat.events.factory import make_bus
from agentchat.events.in_process import InProcessEventBus
from agentchat.events.model import (
    TERMINAL_EVENTS,
    BusClosed,
    BusEvent,
    RunFinished,
    StreamInterrupted,
    SubscriberLagged,
    UnknownRun,
    encode_many,
    encode_sse,
)
from agentchat.events.redis_bus import RedisEventBus

__all__ = [
    "TERMINAL_EVENTS",
    "BusClosed",
    "BusEvent",
    "EventBus",
    "InProcessEventBus",
    "RedisEventBus",
    "RunFinished",
    "StreamInterrupted",
    "SubscriberLagged",
    "UnknownRun",
    "encode_many",
    "encode_sse",
    "make_bus",
]
