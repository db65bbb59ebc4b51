"""Small helpers for the pure ASGI middleware: header look-ups and JSON error answers."""

from __future__ import annotations

import json
from collections.abc import Iterable

from starlette.types import Scope, Send


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of a request header (`name` in lower case), decoded as latin-1."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


async def send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Answer with the API's error shape `{"error": {"code", "message"}}`."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *headers,
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
