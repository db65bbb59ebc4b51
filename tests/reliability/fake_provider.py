"""An OpenAI-compatible endpoint that breaks: it starts a streamed answer, sends half a chunk
and closes the connection. A plain socket server on a thread, so nothing tidies the break."""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager

HEAD = (
    b"HTTP/1.1 200 OK\r\n"
    b"Content-Type: text/event-stream\r\n"
    b"Cache-Control: no-cache\r\n"
    b"Connection: close\r\n\r\n"
)
HALF_CHUNK = (
    b'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,'
    b'"model":"broken","choices":[{"index":0,"delta":{"role":"assistant","content":"hel'
)


class _BrokenStream(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        conn: socket.socket = self.request
        _read_request(conn)
        conn.sendall(HEAD + HALF_CHUNK)
        conn.shutdown(socket.SHUT_RDWR)


def _read_request(conn: socket.socket) -> None:
    """Read the head and the Content-Length body so the client sees a clean request."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = conn.recv(65536)
        if not piece:
            return
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        piece = conn.recv(65536)
        if not piece:
            return
        body += piece


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@contextmanager
def broken_stream_endpoint() -> Iterator[str]:
    """The base URL (…/v1) of an endpoint whose every answer breaks half way."""
    server = _Server(("127.0.0.1", 0), _BrokenStream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
