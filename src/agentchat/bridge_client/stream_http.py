"""A streaming HTTP/1.1 request over a plain asyncio connection: the bridge client's hot path.

Reading a turn's SSE body through httpx costs h11's state machine, anyio's cancel scopes and
several generator layers per chunk: about a third of the API's CPU with 100 live runs. Here a
response is read straight off the socket and its chunked body is decoded in place; every
chunk that has arrived whole is handed on in one piece. One connection per turn, closed at
its end (closing it early leaves the turn to the bridge: `follow` reads it again).
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from agentchat.bridge_client.address import socket_path

READ_SIZE = 65_536
MAX_HEAD = 65_536


class StreamError(Exception):
    """The request could not be sent or its response could not be read."""


class ConnectFailed(StreamError):
    """No connection: refused, unresolvable, or the connect timed out."""


class ReadTimedOut(StreamError):
    """Nothing arrived for the read timeout."""


@dataclass
class StreamResponse:
    status: int
    headers: dict[str, str]
    _reader: asyncio.StreamReader
    _writer: asyncio.StreamWriter
    _read_timeout: float
    _buffer: bytes = b""
    _last_read: float = 0.0
    _watchdog: asyncio.TimerHandle | None = None

    async def aiter_body(self) -> AsyncIterator[bytes]:
        """The body as it arrives: whatever is whole, decoded from chunks when chunked."""
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            async for data in self._chunked():
                yield data
            return
        length = self.headers.get("content-length")
        remaining = int(length) if length is not None else -1
        data, self._buffer = self._buffer, b""
        while True:
            if data:
                data = data if remaining < 0 else data[:remaining]
                remaining -= len(data) if remaining >= 0 else 0
                yield data
            if remaining == 0:
                return
            data = await self._read()
            if not data:
                if remaining > 0:
                    raise StreamError("the connection closed inside the response body")
                return

    async def aread(self) -> bytes:
        return b"".join([part async for part in self.aiter_body()])

    async def aclose(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        self._writer.close()
        with contextlib.suppress(Exception):
            await self._writer.wait_closed()

    async def _chunked(self) -> AsyncIterator[bytes]:
        buffer, self._buffer = self._buffer, b""
        pos = 0
        while True:
            parts: list[bytes] = []
            while True:  # every chunk that is whole in the buffer
                line_end = buffer.find(b"\r\n", pos)
                if line_end == -1:
                    break
                size = _chunk_size(buffer[pos:line_end])
                if size == 0:
                    if parts:
                        yield b"".join(parts)
                    return
                end = line_end + 2 + size
                if len(buffer) < end + 2:
                    break
                parts.append(buffer[line_end + 2 : end])
                pos = end + 2
            if parts:
                yield b"".join(parts)
            buffer, pos = buffer[pos:], 0
            more = await self._read()
            if not more:
                raise StreamError("the connection closed inside a chunked body")
            buffer += more

    async def _read(self) -> bytes:
        try:
            data = await self._reader.read(READ_SIZE)
        except OSError as exc:
            raise StreamError(str(exc) or type(exc).__name__) from exc
        self._last_read = asyncio.get_running_loop().time()
        return data

    def _watch(self) -> None:
        """The read timeout, as one timer per response rather than one per read: it fails
        the pending read once nothing has arrived for `_read_timeout` s."""
        loop = asyncio.get_running_loop()
        self._last_read = loop.time()

        def check() -> None:
            idle = loop.time() - self._last_read
            if idle >= self._read_timeout:
                self._reader.set_exception(
                    ReadTimedOut(f"nothing arrived for {self._read_timeout} s")
                )
            else:
                self._watchdog = loop.call_later(self._read_timeout - idle, check)

        self._watchdog = loop.call_later(self._read_timeout, check)


async def open_stream(
    method: str,
    url: str,
    body: bytes | None,
    headers: dict[str, str],
    *,
    connect_timeout: float,
    read_timeout: float,
) -> StreamResponse:
    """Send `METHOD url` (with a JSON body when `body` is given) and read the response's
    status line and headers."""
    parts = urlsplit(url)
    unix = socket_path(url)
    try:
        async with asyncio.timeout(connect_timeout):
            reader, writer = await _connect(parts, unix)
    except (OSError, TimeoutError) as exc:
        raise ConnectFailed(str(exc) or type(exc).__name__) from exc
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host_header = "localhost" if unix else parts.netloc.rpartition("@")[2]
    content = (
        ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        if body is not None
        else []
    )
    lines = [
        f"{method} {target} HTTP/1.1",
        f"Host: {host_header}",
        *content,
        "Accept: text/event-stream",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    response = StreamResponse(0, {}, reader, writer, read_timeout)
    response._watch()
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b""))
        head = await _read_head(response)
    except BaseException:
        await response.aclose()
        raise
    response.status, response.headers, response._buffer = head
    return response


async def _connect(
    parts: SplitResult, unix: str | None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    if unix is not None:
        return await asyncio.open_unix_connection(unix, limit=MAX_HEAD)
    secure = parts.scheme == "https"
    host, port = parts.hostname or "127.0.0.1", parts.port or (443 if secure else 80)
    context = ssl.create_default_context() if secure else None
    return await asyncio.open_connection(host, port, ssl=context, limit=MAX_HEAD)


async def _read_head(response: StreamResponse) -> tuple[int, dict[str, str], bytes]:
    buffer = b""
    while (end := buffer.find(b"\r\n\r\n")) == -1:
        if len(buffer) > MAX_HEAD:
            raise StreamError("the response headers are too long")
        more = await response._read()
        if not more:
            raise StreamError("the connection closed before a response")
        buffer += more
    status_line, *header_lines = buffer[:end].decode("latin-1").split("\r\n")
    try:
        status = int(status_line.split(" ", 2)[1])
    except (IndexError, ValueError) as exc:
        raise StreamError(f"not an HTTP response: {status_line[:100]!r}") from exc
    headers: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, buffer[end + 4 :]


def _chunk_size(line: bytes) -> int:
    try:
        return int(line.split(b";", 1)[0].strip(), 16)
    except ValueError as exc:
        raise StreamError(f"a malformed chunk size: {line[:40]!r}") from exc
