"""A tiny fake of the OpenAI and Anthropic APIs, served by uvicorn on a free loopback port."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse

GOOD_KEY = "sk-good-0123456789abcdef"
MODELS = ("tiny", "reasoning")


def build_app(seen: list[dict[str, Any]]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append({"path": request.url.path, "headers": dict(request.headers), "body": body})
        auth = request.headers.get("authorization", "")
        if auth != f"Bearer {GOOD_KEY}":
            message = f"Incorrect API key provided: {auth.removeprefix('Bearer ')}."
            return _error(401, {"message": message, "code": "invalid_api_key"})
        if body["model"] == "reasoning" and "max_tokens" in body:
            message = "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead."
            return _error(400, {"message": message})
        if body["model"] not in MODELS:
            return _error(404, {"message": f"The model `{body['model']}` does not exist"})
        choice = {"index": 0, "message": {"role": "assistant", "content": "p"}}
        return JSONResponse({"object": "chat.completion", "choices": [choice]})

    @app.post("/v1/messages")
    async def messages(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append({"path": request.url.path, "headers": dict(request.headers), "body": body})
        if request.headers.get("x-api-key") != GOOD_KEY:
            detail = {"type": "authentication_error", "message": "invalid x-api-key"}
            return JSONResponse({"type": "error", "error": detail}, status_code=401)
        return JSONResponse({"type": "message", "content": [{"type": "text", "text": "p"}]})

    @app.post("/html/chat/completions")
    async def html() -> HTMLResponse:
        return HTMLResponse("<html><body><h1>Welcome</h1></body></html>")

    @app.post("/broken/chat/completions")
    async def broken() -> PlainTextResponse:
        return PlainTextResponse("upstream   exploded\n", status_code=502)

    @app.post("/echo/chat/completions")
    async def echo(request: Request) -> JSONResponse:
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        return _error(401, {"message": f"bad key {key}" + " x" * 400})

    @app.post("/slow/chat/completions")
    async def slow() -> JSONResponse:
        await asyncio.Event().wait()  # never answers; the server cancels it on shutdown
        return JSONResponse({})

    return app


def _error(status: int, error: dict[str, str]) -> JSONResponse:
    return JSONResponse({"error": {"type": "invalid_request_error", **error}}, status_code=status)


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Run `app` on 127.0.0.1:<free port> in a thread; yield its base URL; stop it after."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        _wait_until(lambda: server.started or not thread.is_alive(), timeout=10)
        assert server.started, "the fake provider did not start"
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        assert not thread.is_alive(), "the fake provider did not stop"


def unused_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until(condition: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        time.sleep(0.01)
