"""The scripted model over HTTP: an OpenAI-compatible FastAPI app and ways to run it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict

from agentchat.scripted_llm.play import Hold, Malformed, Pause, Reply, Stall, Text, plan_reply
from agentchat.scripted_llm.script import read_conversation
from agentchat.scripted_llm.wire import (
    MALFORMED_LINE,
    MODEL_ID,
    ChunkWriter,
    CompletionBuilder,
    context_error_body,
    error_body,
    estimate_prompt_tokens,
    model_card,
)

_GRACE_SECONDS = 1  # open streams get this long to finish when a threaded server stops
_BATCH = 64  # chunks per write when nothing paces them; other requests run in between
HOLD_MAX_S = 300.0  # a gate nobody releases lets its streams go on after this long


class Gates:
    """`#hold NAME` waits for `POST /v1/_gates/NAME` (once released, a gate stays open)."""

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def _event(self, name: str) -> asyncio.Event:
        return self._events.setdefault(name, asyncio.Event())

    async def wait(self, name: str) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._event(name).wait(), HOLD_MAX_S)

    def release(self, name: str) -> None:
        self._event(name).set()


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = MODEL_ID
    messages: list[dict[str, Any]]
    stream: bool = False


def create_app() -> FastAPI:
    app = FastAPI(title="Agent Chat scripted model", docs_url=None, redoc_url=None)
    gates = Gates()

    async def completions(body: ChatRequest) -> Response:
        return await chat_completions(body, gates)

    async def release(name: str) -> Response:
        gates.release(name)
        return Response(status_code=204)

    app.add_api_route("/v1/models", list_models, methods=["GET"])
    app.add_api_route("/v1/models/{model_id:path}", get_model, methods=["GET"])
    app.add_api_route("/v1/chat/completions", completions, methods=["POST"])
    app.add_api_route("/v1/_gates/{name}", release, methods=["POST"])
    return app


async def list_models() -> dict[str, Any]:
    return {"object": "list", "data": [model_card()]}


async def get_model(model_id: str) -> dict[str, Any]:
    return model_card(model_id)


async def chat_completions(body: ChatRequest, gates: Gates) -> Response:
    tools = (body.model_extra or {}).get("tools")
    reply = plan_reply(read_conversation(body.messages, tools if isinstance(tools, list) else None))
    refusal = _refusal(reply, body.messages)
    if refusal is not None:
        return refusal
    prompt_tokens = reply.prompt_tokens
    if prompt_tokens is None:
        prompt_tokens = estimate_prompt_tokens(body.messages)
    if body.stream:
        stream = _stream(reply, ChunkWriter(body.model), prompt_tokens, gates)
        return StreamingResponse(stream, media_type="text/event-stream")
    return JSONResponse(await _complete(reply, body.model, prompt_tokens, gates))


def _refusal(reply: Reply, messages: list[dict[str, Any]]) -> JSONResponse | None:
    """The error a request gets instead of an answer (`#fail`, `#context`), if any."""
    if reply.fail_status is not None:
        message = f"Scripted failure: HTTP {reply.fail_status} (#fail directive)"
        headers = {"Retry-After": str(reply.retry_after_s)} if reply.retry_after_s else None
        return JSONResponse(error_body(reply.fail_status, message), reply.fail_status, headers)
    if reply.context_limit is not None:
        tokens = estimate_prompt_tokens(messages)
        if tokens > reply.context_limit:
            return JSONResponse(context_error_body(reply.context_limit, tokens), 400)
    return None


async def _stream(
    reply: Reply, writer: ChunkWriter, prompt_tokens: int, gates: Gates
) -> AsyncIterator[str]:
    """SSE lines; back-to-back chunks go out in batches, the first one and paced ones at once."""
    produced = 0
    batch: list[str] = []
    for event in reply.events():
        if isinstance(event, Pause | Hold):
            if batch:
                yield "".join(batch)
                batch.clear()
            await _wait(event, gates)
            continue
        if isinstance(event, Stall):
            yield "".join(batch)
            return
        if isinstance(event, Malformed):
            batch.append(MALFORMED_LINE)
            continue
        produced += 1
        if isinstance(event, Text):
            batch.append(writer.text(event))
        else:
            batch.extend(writer.tool_call(event))
        if produced == 1 or len(batch) >= _BATCH:
            yield "".join(batch)
            batch.clear()
            await asyncio.sleep(0)
    batch.extend(writer.finish(prompt_tokens, produced))
    yield "".join(batch)


async def _wait(event: Pause | Hold, gates: Gates) -> None:
    if isinstance(event, Pause):
        await asyncio.sleep(event.seconds)
    else:
        await gates.wait(event.name)


async def _complete(reply: Reply, model: str, prompt_tokens: int, gates: Gates) -> dict[str, Any]:
    builder = CompletionBuilder(model)
    produced = 0
    for event in reply.events():
        if isinstance(event, Pause | Hold):
            await _wait(event, gates)
        elif isinstance(event, Stall | Malformed):
            break
        else:
            builder.add(event)
            produced += 1
    return builder.build(prompt_tokens, produced)


# --- running it --------------------------------------------------------------------------


def main(host: str, port: int) -> None:
    """`agentchat scripted-llm`: serve until interrupted."""
    uvicorn.run(create_app(), host=host, port=port, log_level="warning")


def serve_in_thread(
    host: str = "127.0.0.1", port: int = 0, *, start_timeout: float = 10.0
) -> tuple[str, Callable[[], None]]:
    """Serve on a background thread; returns (base URL ending in /v1, stop callable).

    The socket is bound here, so port 0 picks a free port and the URL is known at once.
    `stop` waits for the thread to end (open streams get `_GRACE_SECONDS`) and may be called
    more than once.
    """
    sock = _bind(host, port)
    # log_config=None and log_level=None: leave the host process's logging as it is.
    config = uvicorn.Config(
        create_app(),
        log_config=None,
        log_level=None,
        lifespan="off",
        timeout_graceful_shutdown=_GRACE_SECONDS,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="scripted-llm", daemon=True
    )

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=_GRACE_SECONDS + 2)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=5)
        sock.close()

    thread.start()
    _wait_until(lambda: server.started or not thread.is_alive(), start_timeout)
    if not server.started:
        stop()
        raise RuntimeError(f"the scripted model did not start on {host}:{port}")
    bound = sock.getsockname()[1]
    authority = f"[{host}]" if ":" in host else host
    return f"http://{authority}:{bound}/v1", stop


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _wait_until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
