"""The whole stack for run tests: the scripted model (thread), the bridge (subprocess), the API
(thread) on the test's database. `stack` is it; `make_stack` for a test that needs a second
one or other settings for one test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.support.servers import BridgeProcess, serve_app
from tests.support.sse import Sse, read_events, until_terminal


@dataclass
class Stack:
    url: str
    database: Database
    settings: Settings
    http: httpx.Client
    bridge: BridgeProcess
    model_id: int

    def post(self, path: str, body: Any = None, expect: int | None = None) -> Any:
        response = self.http.post(path, json=body)
        if expect is not None:
            assert response.status_code == expect, response.text
        return response.json() if response.content else None

    def get(self, path: str, expect: int = 200) -> Any:
        response = self.http.get(path)
        assert response.status_code == expect, response.text
        return response.json()

    def new_session(self) -> int:
        return int(self.post("/api/chat/sessions", {}, expect=201)["sessionId"])

    def start(self, session_id: int, message: str, **extra: Any) -> dict[str, Any]:
        body = {"message": message, **extra}
        result: dict[str, Any] = self.post(
            f"/api/chat/sessions/{session_id}/runs", body, expect=201
        )
        return result

    def events(self, run_id: str, last: int | None = None, **kw: Any) -> list[Sse]:
        headers = {"Last-Event-ID": str(last)} if last is not None else None
        kw.setdefault("stop", until_terminal)
        return read_events(f"{self.url}/api/chat/runs/{run_id}/stream", headers=headers, **kw)

    def ask(self, session_id: int, message: str, **extra: Any) -> tuple[dict[str, Any], list[Sse]]:
        started = self.start(session_id, message, **extra)
        return started, self.events(started["runId"])


def api_settings(data_dir: Path, bridge: BridgeProcess, **overrides: Any) -> Settings:
    """The settings of an API on a running bridge (the test started it and the model)."""
    defaults = {
        "bridge_url": bridge.url,
        "bridge_secret": bridge.secret,
        "start_bridge": False,
        "start_scripted_llm": False,
    }
    return Settings(data_dir=data_dir, **{**defaults, **overrides})


def add_scripted_model(http: httpx.Client, scripted_url: str) -> int:
    """Registers the scripted model as the default, through the API; its id."""
    body = {"name": "scripted", "baseUrl": scripted_url, "modelName": "scripted", "isDefault": True}
    response = http.post("/api/models", json=body)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def make_stack(
    tmp_path: Path,
    database: Database,
    bridge: BridgeProcess,
    scripted_url: str,
    **overrides: Any,
) -> tuple[Stack, Callable[[], None]]:
    settings = api_settings(tmp_path / "data", bridge, **overrides)
    url, stop = serve_app(create_app(settings, database=database))
    http = httpx.Client(base_url=url, timeout=30)
    model_id = add_scripted_model(http, scripted_url)

    def close() -> None:
        http.close()
        stop()

    stack = Stack(url, database, settings, http, bridge, model_id)
    return stack, close


@pytest.fixture
def stack_settings() -> dict[str, Any]:
    """The API's settings under `stack` beyond the bridge's: a module or folder whose API needs
    others (a toolset, the object store, no run rate) overrides this, not `stack`."""
    return {}


@pytest.fixture
def stack(
    tmp_path: Path,
    database: Database,
    bridge: BridgeProcess,
    scripted_url: str,
    stack_settings: dict[str, Any],
) -> Iterator[Stack]:
    """The API on a thread, on `bridge` (the worker's unless the module declares its own), with
    the scripted model registered as the default."""
    value, close = make_stack(tmp_path, database, bridge, scripted_url, **stack_settings)
    yield value
    close()
