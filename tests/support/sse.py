"""A test SSE client: read events of a stream until a condition, with a timeout."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

TERMINAL = {"workflow_complete", "workflow_error"}


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
        current: dict[str, Any] = {}
        for line in response.iter_lines():
            if time.monotonic() > deadline:
                raise TimeoutError(f"stream {url} took longer than {timeout} s; got {events}")
            if line == "":
                if "data" in current:
                    events.append(
                        Sse(
                            current.get("id"),
                            current.get("event", "message"),
                            json.loads(current["data"]),
                        )
                    )
                    if stop is not None and stop(events):
                        return events
                current = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                current[name] = value[1:] if value.startswith(" ") else value
    return events


def until_terminal(events: list[Sse]) -> bool:
    return bool(events) and events[-1].event in TERMINAL
