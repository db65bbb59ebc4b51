"""The scripted model behind a recorder, plus a minimal Anthropic Messages endpoint.

Every request (method, path, headers, JSON body) is kept in `RecordingModel.requests`, so a
test asserts what hermes-agent actually sent for a provider kind. `/v1/messages` answers in
Anthropic's format (streamed or not) with fixed text and usage.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agentchat.scripted_llm.server import create_app
from tests.support.servers import serve_app

# hermes recognises OpenRouter by "openrouter" in the base URL: `openrouter_url` has it.
OPENROUTER_PREFIX = "/openrouter"
ANTHROPIC_TEXT = "Hello from the Anthropic stand-in."
ANTHROPIC_USAGE = {"input_tokens": 1234, "output_tokens": 7}


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class RecordingModel:
    url: str  # ends in /v1
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def openrouter_url(self) -> str:
        return f"{self.root}{OPENROUTER_PREFIX}/v1"

    @property
    def root(self) -> str:
        return self.url.removesuffix("/v1")

    def posts(self, model: str) -> list[Recorded]:
        with self.lock:
            return [
                r
                for r in self.requests
                if r.method == "POST" and isinstance(r.body, dict) and r.body.get("model") == model
            ]


class _Recorder:
    def __init__(self, app: ASGIApp, sink: Callable[[Recorded], None]) -> None:
        self.app, self.sink = app, sink

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.sink(Recorded(scope["method"], scope["path"], headers, body))
        if scope["path"].startswith(OPENROUTER_PREFIX):
            path = scope["path"].removeprefix(OPENROUTER_PREFIX)
            scope = {**scope, "path": path, "raw_path": path.encode()}
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": raw, "more_body": False}

        await self.app(scope, replay, send)


async def _anthropic_messages(request: Request) -> Response:
    body = await request.json()
    model = body.get("model", "claude")
    if not body.get("stream"):
        return JSONResponse(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": ANTHROPIC_TEXT}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": ANTHROPIC_USAGE,
            }
        )
    return StreamingResponse(_anthropic_stream(model), media_type="text/event-stream")


def _anthropic_stream(model: str) -> Iterator[str]:
    start = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": ANTHROPIC_USAGE["input_tokens"], "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": ANTHROPIC_TEXT},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": ANTHROPIC_USAGE["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    for name, data in events:
        yield f"event: {name}\ndata: {json.dumps(data)}\n\n"


def _app(sink: Callable[[Recorded], None]) -> ASGIApp:
    app: FastAPI = create_app()
    app.add_api_route("/v1/messages", _anthropic_messages, methods=["POST"])
    return _Recorder(app, sink)


@contextmanager
def recording_model() -> Iterator[RecordingModel]:
    holder: list[RecordingModel] = []

    def sink(item: Recorded) -> None:
        with holder[0].lock:
            holder[0].requests.append(item)

    url, stop = serve_app(_app(sink))  # type: ignore[arg-type]
    holder.append(RecordingModel(url=f"{url}/v1"))
    try:
        yield holder[0]
    finally:
        stop()
