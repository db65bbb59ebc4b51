"""The one Server-Sent Events codec: frames written by the API and the bridge, and the parser
the bridge client, the tests and the benchmarks read them with.

A frame is `id: ID` (optional), `event: NAME`, one `data:` line of compact JSON, a blank line.
Each event is JSON-encoded once: a typed event by pydantic, a dict by `dump_json`.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agentchat.protocol.events import EventModel

KEEPALIVE = b": keep-alive\n\n"


def _compact_encoder() -> Callable[[Any], str]:
    """`json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)` with the C
    encoder made once: json.dumps builds an encoder per call, most of its cost for an event."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C accelerator (another Python)
        return lambda data: json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)
    encode = make(None, str, json.encoder.encode_basestring, None, ":", ",", False, False, True)
    return lambda data: "".join(encode(data, 0))


_dump = _compact_encoder()


def dump_json(data: Any) -> str:
    """Compact JSON on one line (json escapes newlines inside strings)."""
    return _dump(data)


def comment(text: str) -> bytes:
    """A comment line (keep-alive, ping): ignored by every parser."""
    return f": {text}\n\n".encode()


def frame(event: str, data_json: str, event_id: int | str | None = None) -> bytes:
    """One SSE message from already-encoded JSON."""
    if event_id is None:
        return f"event: {event}\ndata: {data_json}\n\n".encode()
    return f"id: {event_id}\nevent: {event}\ndata: {data_json}\n\n".encode()


def encode(event: str, data: dict[str, Any], event_id: int | str | None = None) -> bytes:
    """One SSE message for an event name and its JSON body as a dict."""
    return frame(event, dump_json(data), event_id)


def encode_event(event: EventModel, event_id: int | str | None = None) -> bytes:
    """One SSE message for a typed event (its model's `EVENT` name)."""
    return frame(event.EVENT, event.wire_json(), event_id)


# ── parsing ─────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class SseMessage:
    event: str
    data: str
    id: str | None = None

    def json(self) -> Any:
        return json.loads(self.data)

    @property
    def num(self) -> int:
        """The event number: the id, or its part after the last `:` (`runId:N`)."""
        return int(str(self.id or "0").rsplit(":", 1)[-1] or 0)


class SseParser:
    """Feed lines (without their line ending); a complete message comes back at its blank line."""

    def __init__(self) -> None:
        self._event = "message"
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, line: str) -> SseMessage | None:
        if not line:
            return self.flush()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return None

    def flush(self) -> SseMessage | None:
        """The message gathered so far (at a blank line or the end of the stream)."""
        message = None
        if self._data:
            message = SseMessage(self._event, "\n".join(self._data), self._id)
        self._event, self._data, self._id = "message", [], None
        return message


def parse_lines(lines: Iterable[str]) -> Iterator[SseMessage]:
    parser = SseParser()
    for line in lines:
        message = parser.feed(line)
        if message is not None:
            yield message
    last = parser.flush()
    if last is not None:
        yield last


async def aparse_lines(lines: AsyncIterable[str]) -> AsyncIterator[SseMessage]:
    parser = SseParser()
    async for line in lines:
        message = parser.feed(line)
        if message is not None:
            yield message
    last = parser.flush()
    if last is not None:
        yield last


async def aparse_chunks(chunks: AsyncIterable[bytes]) -> AsyncIterator[SseMessage]:
    """`aparse_lines` from raw body chunks: whole frames are cut at their blank line in one
    step, not line by line through an async generator each (the bridge client's hot path)."""
    parser = SseParser()
    buffer = b""
    async for chunk in chunks:
        buffer += chunk
        if b"\r" in buffer:  # CRLF or CR line ends; a CR at the end may be half of a CRLF
            held = buffer.endswith(b"\r")
            buffer = buffer[:-1] if held else buffer
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if held:
                buffer += b"\r"
        *frames, buffer = buffer.split(b"\n\n")
        for raw in frames:
            for line in raw.decode().split("\n"):
                parser.feed(line)
            message = parser.flush()
            if message is not None:
                yield message
    for line in buffer.decode().replace("\r", "").split("\n"):
        parser.feed(line)
    last = parser.flush()
    if last is not None:
        yield last


def parse_text(text: str | bytes) -> list[SseMessage]:
    """Every message of a whole SSE body."""
    body = text.decode() if isinstance(text, bytes) else text
    return list(parse_lines(body.splitlines()))
