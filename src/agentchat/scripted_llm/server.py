"""The scripted model over HTTP: an OpenAI-compatible FastAPI app and ways to run it."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict

from agentchat.scripted_llm.play import Pause, Reply, Text, plan_reply
from agentchat.scripted_llm.script import read_conversation
from agentchat.scripted_llm.wire import (
    MODEL_ID,
    ChunkWriter,
    CompletionBuilder,
    error_body,
    estimate_prompt_tokens,
    model_card,
)

_YIELD_EVERY = 100  # let other requests run while a long `#tokens` stream is produced


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str = MODEL_ID
    messages: list[dict[str, Any]]
    stream: bool = False


def create_app() -> FastAPI:
    app = FastAPI(title="Agent Chat scripted model", docs_url=None, redoc_url=None)
    app.add_api_route("/v1/models", list_models, methods=["GET"])
    app.add_api_route("/v1/models/{model_id:path}", get_model, methods=["GET"])
    app.add_api_route("/v1/chat/completions", chat_completions, methods=["POST"])
    return app


async def list_models() -> dict[str, Any]:
    return {"object": "list", "data": [model_card()]}


async def get_model(model_id: str) -> dict[str, Any]:
    return model_card(model_id)


async def chat_completions(body: ChatRequest) -> Response:
    reply = plan_reply(read_conversation(body.messages))
    if reply.fail_status is not None:
        message = f"Scripted failure: HTTP {reply.fail_status} (#fail directive)"
        return JSONResponse(error_body(reply.fail_status, message), reply.fail_status)
    prompt_tokens = reply.prompt_tokens or estimate_prompt_tokens(body.messages)
    if body.stream:
        stream = _stream(reply, ChunkWriter(body.model), prompt_tokens)
        return StreamingResponse(stream, media_type="text/event-stream")
    return JSONResponse(await _complete(reply, body.model, prompt_tokens))


async def _stream(reply: Reply, writer: ChunkWriter, prompt_tokens: int) -> AsyncIterator[str]:
    produced = 0
    for event in reply.events():
        if isinstance(event, Pause):
            await asyncio.sleep(event.seconds)
            continue
        produced += 1
        if produced % _YIELD_EVERY == 0:
            await asyncio.sleep(0)
        if isinstance(event, Text):
            yield writer.text(event)
        else:
            for line in writer.tool_call(event):
                yield line
    for line in writer.finish(prompt_tokens, produced):
        yield line


async def _complete(reply: Reply, model: str, prompt_tokens: int) -> dict[str, Any]:
    builder = CompletionBuilder(model)
    produced = 0
    for event in reply.events():
        if isinstance(event, Pause):
            await asyncio.sleep(event.seconds)
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
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(), log_level="warning", lifespan="off", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="scripted-llm", daemon=True
    )
    thread.start()
    _wait_until(lambda: server.started or not thread.is_alive(), start_timeout)
    if not server.started:
        sock.close()
        raise RuntimeError("the scripted model did not start")

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=3)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=5)
        sock.close()

    return f"http://{host}:{bound_port}/v1", stop


def _wait_until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.005)
