"""A planted model API key never leaves: not in a response of the models and chat API, an
export, an error the model causes, an event of a run that fails on it, nor a log line."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi import FastAPI, Request
from starlette.responses import StreamingResponse

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.local_stack import free_port
from agentchat.protocol import sse
from tests.models.fake_provider import build_app, serve
from tests.security.conftest import client_for, make_settings

SECRET = "sk-planted-SECRET-1234"
LEAK_MARKERS = (SECRET, "planted-SECRET", SECRET[:-4])


class Recorder:
    """Every response the test saw, to grep once at the end."""

    def __init__(self) -> None:
        self.responses: list[httpx.Response] = []

    def __call__(self, response: httpx.Response) -> httpx.Response:
        self.responses.append(response)
        return response

    def assert_clean(self, caplog: pytest.LogCaptureFixture) -> None:
        for response in self.responses:
            seen = f"{response.headers}\n{response.text}"
            for marker in LEAK_MARKERS:
                assert marker not in seen, f"{response.request.url}: {seen[:1000]}"
            if "apiKeyLast4" in response.text:
                assert_last4_only_in_its_field(response.json())
        logged = caplog.text + "".join(repr(r.args) + repr(r.__dict__) for r in caplog.records)
        for marker in LEAK_MARKERS:
            assert marker not in logged


def assert_last4_only_in_its_field(body: Any) -> None:
    models = body if isinstance(body, list) else [body]
    for model in models:
        assert model["apiKeyLast4"] == SECRET[-4:]
        assert model["hasApiKey"] is True
        assert SECRET[-4:] not in json.dumps({k: v for k, v in model.items() if k != "apiKeyLast4"})


@pytest.fixture
def provider_url() -> Iterator[str]:
    with serve(build_app([])) as url:
        yield url


@pytest.fixture
def echoing_bridge_url() -> Iterator[str]:
    """A bridge whose runs fail the way a provider that echoes the key makes them fail."""
    with serve(echoing_bridge()) as url:
        yield url


def echoing_bridge() -> FastAPI:
    app = FastAPI()

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/run")
    async def run(request: Request) -> StreamingResponse:
        key = (await request.json())["model"]["apiKey"]
        error = f"HTTP 401: Incorrect API key provided: {key}."

        async def events() -> AsyncIterator[bytes]:
            status = {"kind": "status", "content": f"calling the model with {key}"}
            yield sse.encode("node_stream", status)
            end = {"status": "failed", "finalText": "", "error": error, "usage": {}, "messages": []}
            yield sse.encode("run_end", end)

        return StreamingResponse(events(), media_type="text/event-stream")

    return app


async def plant_model(c: httpx.AsyncClient, seen: Recorder, base_url: str) -> int:
    body = {"name": "planted", "baseUrl": base_url, "modelName": "tiny", "apiKey": SECRET}
    created = seen(await c.post("/api/models", json=body))
    assert created.status_code == 201, created.text
    return int(created.json()["id"])


async def touch_models(c: httpx.AsyncClient, seen: Recorder, model_id: int, dead_url: str) -> None:
    seen(await c.get("/api/models"))
    seen(await c.get(f"/api/models/{model_id}"))
    seen(await c.patch(f"/api/models/{model_id}", json={"name": "renamed"}))
    bad_patches = [
        {"apiKey": SECRET, "contextLength": 5},
        {"apiKey": SECRET + "\x00"},
        {"apiKey": SECRET * 200},
        {"apiKey": SECRET, "baseUrl": f"http://user:{SECRET}@example.com"},
    ]
    for body in bad_patches:
        assert seen(await c.patch(f"/api/models/{model_id}", json=body)).status_code == 422
    bad_create = {"name": "", "baseUrl": "nope", "modelName": "a b", "apiKey": SECRET + "\x01"}
    assert seen(await c.post("/api/models", json=bad_create)).status_code == 422
    tested = seen(await c.post(f"/api/models/{model_id}/test"))
    assert tested.json()["ok"] is False
    assert "bad key ***" in tested.json()["error"]  # the provider echoed it; it was masked
    dead = await plant_model(c, seen, dead_url)
    tested = seen(await c.post(f"/api/models/{dead}/test"))
    assert tested.json()["ok"] is False


async def touch_chat(c: httpx.AsyncClient, seen: Recorder, session_id: int) -> None:
    seen(await c.get(f"/api/chat/sessions/{session_id}"))
    seen(await c.get("/api/chat/sessions?status=ALL"))
    seen(await c.get(f"/api/chat/sessions/{session_id}/messages"))
    for fmt in ("md", "json"):
        for branch in ("active", "all"):
            query = f"format={fmt}&branch={branch}"
            exported = seen(await c.get(f"/api/chat/sessions/{session_id}/export?{query}"))
            assert exported.status_code == 200


async def run_until_done(c: httpx.AsyncClient, seen: Recorder, session_id: int) -> str:
    started = seen(await c.post(f"/api/chat/sessions/{session_id}/runs", json={"message": "hi"}))
    assert started.status_code == 201, started.text
    run_id = str(started.json()["runId"])
    with anyio.fail_after(15):
        while seen(await c.get(f"/api/chat/runs/{run_id}/state")).json()["status"] == "RUNNING":
            await anyio.sleep(0.05)
        stream = seen(await c.get(f"/api/chat/runs/{run_id}/stream"))
    assert "workflow_error" in stream.text
    return run_id


async def exercise(app: FastAPI, provider_url: str, caplog: pytest.LogCaptureFixture) -> None:
    seen = Recorder()
    async with app.router.lifespan_context(app), client_for(app) as c:
        model_id = await plant_model(c, seen, f"{provider_url}/echo")
        await touch_models(c, seen, model_id, f"http://127.0.0.1:{free_port()}/v1")
        created = seen(await c.post("/api/chat/sessions", json={"modelId": model_id}))
        session_id = int(created.json()["sessionId"])
        await run_until_done(c, seen, session_id)
        await touch_chat(c, seen, session_id)
    seen.assert_clean(caplog)


async def test_a_planted_key_never_leaves_through_models_chat_or_logs(
    tmp_path: Path,
    database: Database,
    provider_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Runs here fail on an unreachable bridge, so the key reaches no bridge at all."""
    caplog.set_level(logging.DEBUG)
    settings = make_settings(tmp_path, bridge_url=f"http://127.0.0.1:{free_port()}")
    await exercise(create_app(settings, database=database), provider_url, caplog)


async def test_a_key_echoed_by_the_provider_does_not_leak_through_a_failed_run(
    tmp_path: Path,
    database: Database,
    provider_url: str,
    echoing_bridge_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = make_settings(tmp_path, bridge_url=echoing_bridge_url)
    await exercise(create_app(settings, database=database), provider_url, caplog)
