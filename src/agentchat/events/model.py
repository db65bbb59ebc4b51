"""The event a bus carries (`BusEvent`), its SSE encoding and the errors every bus raises."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentchat.protocol.events import TERMINAL_EVENTS
from agentchat.protocol.sse import dump_json, frame


@dataclass(frozen=True, slots=True)
class BusEvent:
    """One event of a run as the bus carries it: its SSE name (`EVENT` of a contract model) and
    its JSON body (`wire()`), not the typed model (a bus stores and relays bodies; `/state` and
    the recovery read them back with `protocol.events.from_wire`). `id` counts from 1 within
    the run.

    `raw` is `data` as JSON, encoded once (by whoever has it already, or on first use) and
    shared by every subscriber and stream that sends the event."""

    id: int
    event: str
    data: dict[str, Any]
    raw: str | None = field(default=None, compare=False, repr=False)

    @property
    def is_terminal(self) -> bool:
        return self.event in TERMINAL_EVENTS

    def data_json(self) -> str:
        if self.raw is None:
            object.__setattr__(self, "raw", dump_json(self.data))
        return self.raw  # type: ignore[return-value]


def encode_sse(event: BusEvent) -> bytes:
    """`id: N`, `event: NAME`, one `data:` line, blank line."""
    return frame(event.event, event.data_json(), event.id)


def encode_many(events: Iterable[BusEvent]) -> bytes:
    """Several events joined, for one socket write."""
    return b"".join(encode_sse(e) for e in events)


def check_terminal_last(items: list[tuple[str, dict[str, Any]]]) -> None:
    """A terminal event may only end a batch: nothing is published after it."""
    if any(event in TERMINAL_EVENTS for event, _ in items[:-1]):
        raise RunFinished("a terminal event must be the last of the batch")


class UnknownRun(KeyError):
    """The run was never registered on this bus, or it has been forgotten."""

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self.run_id = run_id

    def __str__(self) -> str:
        return f"unknown run {self.run_id!r}"


class RunFinished(RuntimeError):
    """An event was published after the run's terminal event or `finish()`."""


class StreamInterrupted(Exception):
    """A subscription ended before the run did; reconnect with the last id seen."""


class SubscriberLagged(StreamInterrupted):
    """The subscriber fell more than its queue size behind and was dropped."""


class BusClosed(StreamInterrupted):
    """The bus was closed while the subscription was open."""
