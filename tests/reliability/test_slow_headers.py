"""Issue 34 item 10: no timeout for reading a request's headers. A client that connects and
sends its headers a byte at a time (slowloris), or nothing at all, held its connection open for
as long as it liked: 10,000 such connections stayed open 120 s. Now `agentchat serve` closes a
connection whose request headers are not complete AGENTCHAT_HEADER_TIMEOUT_S after it opened
(or after its previous request), while whole requests, slow bodies of accepted requests and
streams are not cut."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter

TIMEOUT_S = 2
CONNECTIONS = 200


@pytest.fixture(scope="module")  # the tests only connect to it: one serve for both
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("slow-headers")
    env = {"AGENTCHAT_HEADER_TIMEOUT_S": str(TIMEOUT_S)}
    with ServeStarter() as started:
        yield started.start(root, "--data-dir", str(root / "data"), env=env)


def _connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname or "", parts.port or 80), timeout=5)
    sock.setblocking(False)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def _drip(socks: list[socket.socket], byte: bytes) -> None:
    for sock in socks:
        with contextlib.suppress(OSError):  # closed by the server already
            sock.send(byte)


def test_connections_that_never_finish_their_headers_are_closed(server: Served) -> None:
    idle = [_connect(server.url) for _ in range(CONNECTIONS // 2)]
    slow = [_connect(server.url) for _ in range(CONNECTIONS // 2)]
    _drip(slow, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    open_ = set(idle + slow)
    deadline = time.monotonic() + TIMEOUT_S + 10
    try:
        while open_ and time.monotonic() < deadline:
            _drip([s for s in slow if s in open_], b"X")  # a header that never ends
            readable, _, _ = select.select(list(open_), [], [], 0.5)
            open_ -= {s for s in readable if _closed_by_server(s)}
        assert not open_, f"{len(open_)} of {CONNECTIONS} connections still open"
        # The server answers as before, and a kept-alive client sends a second request.
        with httpx.Client(base_url=server.url) as client:
            assert client.get("/api/health").status_code == 200
            assert client.get("/api/health").status_code == 200
    finally:
        for sock in idle + slow:
            sock.close()


def test_a_request_within_the_limit_is_answered_even_if_slow(server: Served) -> None:
    sock = _connect(server.url)
    sock.setblocking(True)
    try:
        for piece in (b"GET /api/health HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"\r\n"):
            sock.sendall(piece)
            time.sleep(TIMEOUT_S / 4)
        sock.settimeout(10)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    finally:
        sock.close()
