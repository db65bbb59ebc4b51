"""The bridge client's streaming POST against a loopback server that answers byte by byte
as written here: chunks cut anywhere, error bodies, a stall, a connection cut mid-body."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from agentchat.bridge_client.stream_http import (
    ConnectFailed,
    ReadTimedOut,
    StreamError,
    open_stream,
)

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], object]


@asynccontextmanager
async def server(script: Script) -> AsyncIterator[tuple[str, list[bytes]]]:
    """A server on a free loopback port; each connection's request is kept, then `script`."""
    requests: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        requests.append(head + await reader.readexactly(length))
        try:
            await script(reader, writer)  # type: ignore[misc]
        finally:
            writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/run", requests
    finally:
        srv.close()
        await srv.wait_closed()


def chunked(*parts: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


async def post(url: str, read_timeout: float = 5.0) -> tuple[int, list[bytes]]:
    headers = {"Authorization": "Bearer s"}
    response = await open_stream(
        "POST", url, b'{"a":1}', headers, connect_timeout=2, read_timeout=read_timeout
    )
    try:
        return response.status, [part async for part in response.aiter_body()]
    finally:
        await response.aclose()


async def test_a_chunked_body_cut_at_every_byte_comes_back_whole_and_in_order() -> None:
    body = chunked(b"event: a\ndata: 1\n\n", b"event: b\ndata: 2\n\n", b"x" * 70_000)
    raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + body

    async def trickle(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        for n in range(0, 399, 7):  # the head and the first chunks a few bytes at a time
            w.write(raw[n : n + 7])
            await w.drain()
            await asyncio.sleep(0.001)
        w.write(raw[399:])
        await w.drain()

    async with server(trickle) as (url, requests):
        status, parts = await post(url)
    assert status == 200
    assert b"".join(parts) == b"event: a\ndata: 1\n\nevent: b\ndata: 2\n\n" + b"x" * 70_000
    assert requests[0].startswith(b"POST /run HTTP/1.1\r\n")
    assert b"Authorization: Bearer s\r\n" in requests[0] and requests[0].endswith(b'{"a":1}')


async def test_chunks_that_arrived_together_are_handed_on_as_one_piece() -> None:
    raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(b"one", b"two")

    async def at_once(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(raw)
        await w.drain()

    async with server(at_once) as (url, _):
        assert await post(url) == (200, [b"onetwo"])


async def test_an_error_answer_with_a_content_length_is_read_whole() -> None:
    raw = b'HTTP/1.1 422 Unprocessable\r\ncontent-length: 11\r\n\r\n{"error":1}'

    async def answer(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(raw)
        await w.drain()
        await asyncio.sleep(1)  # keep-alive: the body's length, not the close, ends it

    async with server(answer) as (url, _):
        assert await post(url) == (422, [b'{"error":1}'])


async def test_a_stalled_stream_times_out_and_a_cut_one_breaks() -> None:
    head = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab"

    async def stall(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(head)
        await w.drain()
        await asyncio.sleep(2)

    async def cut(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(head)
        await w.drain()

    async with server(stall) as (url, _):
        with pytest.raises(ReadTimedOut):
            await post(url, read_timeout=0.3)
    async with server(cut) as (url, _):
        with pytest.raises(StreamError, match="closed inside a chunked body"):
            await post(url)


async def test_nothing_listening_is_a_connect_failure() -> None:
    srv = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    srv.close()
    await srv.wait_closed()
    with pytest.raises(ConnectFailed):
        await post(f"http://127.0.0.1:{port}/run")
