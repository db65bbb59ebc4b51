"""A test SSE client: read events of a stream until a condition, with a timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from agentchat.protocol.events import TERMINAL_EVENTS
from agentchat.protocol.sse import SseParser

TERMINAL = TERMINAL_EVENTS


@dataclass
class Sse:
    id: str | None
    event: str
    data: dict[str, Any]

    @property
    def num(self) -> int:
        return int(str(self.id).rsplit(":", 1)[-1])


def read_events(
    url: str,
    *,
    headers: dict[str, str] | None = None,
    stop: Callable[[list[Sse]], bool] | None = None,
    timeout: float = 60.0,
) -> list[Sse]:
    """Events of the stream at `url` until `stop(events)` is true or the stream ends."""
    events: list[Sse] = []
    deadline = time.monotonic() + timeout
    with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(timeout)) as response:
        response.raise_for_status()
        parser = SseParser()
        for line in response.iter_lines():
            if time.monotonic() > deadline:
                raise TimeoutError(f"stream {url} took longer than {timeout} s; got {events}")
            message = parser.feed(line)
            if message is not None:
                events.append(Sse(message.id, message.event, message.json()))
                if stop is not None and stop(events):
                    return events
    return events


def until_terminal(events: list[Sse]) -> bool:
    return bool(events) and events[-1].event in TERMINAL
