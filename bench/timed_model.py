"""The scripted model for benchmarks: the product's app, plus a note of the monotonic time at
which each `#tokens` piece (`tN`) left the server, per run tag (`benchtag-<tag>` on a plain line
of the user message). `GET /bench/sends/<tag>` returns `{N: ns}` and forgets the tag.

Run: python bench/timed_model.py PORT
"""

from __future__ import annotations

import json
import re
import sys
import time
from typing import Any

import uvicorn

from agentchat.scripted_llm.server import create_app

TAG = re.compile(rb"benchtag-([A-Za-z0-9_-]+)")
TOKEN = re.compile(rb'"content": ?" ?t(\d+)"')
SENDS: dict[str, dict[int, int]] = {}

Scope = dict[str, Any]


class TimedSends:
    """ASGI middleware: reads the tag from the request body, stamps every token it sends."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"].startswith("/bench/sends/"):
            await self._answer_sends(scope["path"].rsplit("/", 1)[-1], send)
            return
        tag: list[str] = []

        async def receive_tagged() -> Any:
            message = await receive()
            found = TAG.findall(message.get("body", b""))
            if found:
                tag[:] = [found[-1].decode()]
            return message

        async def send_timed(message: Any) -> None:
            await send(message)
            if tag and message["type"] == "http.response.body":
                now = time.monotonic_ns()
                marks = SENDS.setdefault(tag[0], {})
                for index in TOKEN.findall(message.get("body", b"")):
                    marks.setdefault(int(index), now)

        await self.app(scope, receive_tagged, send_timed)

    async def _answer_sends(self, tag: str, send: Any) -> None:
        body = json.dumps(SENDS.pop(tag, {})).encode()
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


if __name__ == "__main__":
    app = TimedSends(create_app())
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
