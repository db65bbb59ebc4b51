"""Request bodies: at most `max_bytes` (413, by Content-Length and while reading a chunked
upload), and JSON bodies must be UTF-8, nested at most MAX_JSON_DEPTH deep and free of text
no database can store (a NUL, `\u0000`, which PostgreSQL refuses; an unpaired surrogate,
`\ud800`, which is not text at all), all 422, whatever the database.

The address gets the same care: a NUL in the path or the query (`%00`) is 422 before any route
sees it (a file lookup raised on it, and PostgreSQL alone refused it in a search).

A body is read into memory (it is small by then) and replayed to the app; requests without a
body, such as the GET streams, pass through untouched."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agentchat.protocol.clean_text import is_clean
from agentchat.web.asgi import header, send_error

MAX_JSON_DEPTH = 100
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class _Disconnected(Exception):
    """The client went away while sending its body: there is nobody left to answer."""


def address_problem(scope: Scope) -> str | None:
    """Why the request's path or query is refused, or None."""
    query: bytes = scope.get("query_string", b"")
    if "\x00" in scope["path"] or (b"%" in query and b"\x00" in unquote_to_bytes(query)):
        return "The address holds a NUL character (%00), which no path or value may hold."
    return None


def has_body(scope: Scope) -> bool:
    length = header(scope, b"content-length")
    return header(scope, b"transfer-encoding") is not None or length not in (None, "0")


def declared_length(scope: Scope) -> int | None:
    value = header(scope, b"content-length")
    return int(value) if value is not None and value.strip().isdigit() else None


def is_json(scope: Scope) -> bool:
    value = (header(scope, b"content-type") or "").split(";", 1)[0].strip().lower()
    return value == "application/json" or (
        value.startswith("application/") and value.endswith("+json")
    )


def too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON `text` nests arrays/objects more than `limit` deep (brackets inside
    strings do not count). Cheap when there are few brackets, linear otherwise."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            return True
    return False


def json_problem(body: bytes) -> str | None:
    """Why a JSON body is refused before parsing, or None."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "The body is not valid UTF-8."
    if too_deep(text):
        return f"The JSON body is nested more than {MAX_JSON_DEPTH} levels deep."
    if "\\u" in text and _holds_unstorable(text):
        return (
            "The text holds a NUL character (\\u0000) or an unpaired surrogate "
            "(\\ud800-\\udfff), which cannot be stored."
        )
    return None


def _holds_unstorable(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False  # not JSON: the route's own parsing answers that
    return _unstorable(value)


def _unstorable(value: Any) -> bool:
    if isinstance(value, str):
        return not is_clean(value)
    if isinstance(value, dict):
        return any(_unstorable(k) or _unstorable(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unstorable(v) for v in value)
    return False


async def read_body(receive: Receive, max_bytes: int) -> bytes | None:
    """The whole body, or None as soon as it grows past `max_bytes`."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _Disconnected
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """A receive that first hands over `body`, then the real channel (for disconnects)."""
    pending = True

    async def receive_again() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return receive_again


class BodyGuardMiddleware:
    """`streamed`: POST paths whose route reads its body as a stream with a limit of its own
    (an attachment upload), passed through unread."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, streamed: re.Pattern[str] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.streamed = streamed

    def _is_streamed(self, scope: Scope) -> bool:
        return (
            self.streamed is not None
            and scope.get("method") == "POST"
            and self.streamed.fullmatch(scope["path"]) is not None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (problem := address_problem(scope)):
            await send_error(send, 422, "invalid", problem)
            return
        if scope["type"] != "http" or not has_body(scope) or self._is_streamed(scope):
            await self.app(scope, receive, send)
            return
        try:
            body = await self._body(scope, receive)
        except _Disconnected:
            return
        if body is None:
            limit = f"The body is larger than {self.max_bytes} bytes."
            await send_error(send, 413, "payload_too_large", limit)
            return
        problem = json_problem(body) if is_json(scope) else None
        if problem:
            await send_error(send, 422, "invalid", problem)
            return
        await self.app(scope, replay(body, receive), send)

    async def _body(self, scope: Scope, receive: Receive) -> bytes | None:
        length = declared_length(scope)
        if length is not None and length > self.max_bytes:
            return None
        return await read_body(receive, self.max_bytes)
