"""The whole stack for run tests: scripted model (thread), bridge (subprocess), API (thread).
The model and the bridge are the worker's (tests/support/worker_stack.py)."""

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


@pytest.fixture(scope="module")
def scripted_url(worker_scripted_url: str) -> str:
    """The worker's scripted model (tests/support/worker_stack.py)."""
    return worker_scripted_url


@pytest.fixture(scope="module")
def bridge(worker_bridge: BridgeProcess) -> BridgeProcess:
    """The worker's default bridge; a module that needs other settings defines its own."""
    return worker_bridge


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


def make_stack(
    tmp_path: Path,
    database: Database,
    bridge: BridgeProcess,
    scripted_url: str,
    **overrides: Any,
) -> tuple[Stack, Callable[[], None]]:
    settings = Settings(
        data_dir=tmp_path / "data",
        bridge_url=bridge.url,
        bridge_secret=bridge.secret,
        start_bridge=False,
        start_scripted_llm=False,
        **overrides,
    )
    url, stop = serve_app(create_app(settings, database=database))
    http = httpx.Client(base_url=url, timeout=30)
    model = http.post(
        "/api/models",
        json={
            "name": "scripted",
            "baseUrl": scripted_url,
            "modelName": "scripted",
            "isDefault": True,
        },
    )
    assert model.status_code == 201, model.text

    def close() -> None:
        http.close()
        stop()

    stack = Stack(url, database, settings, http, bridge, int(model.json()["id"]))
    return stack, close


@pytest.fixture
def stack(
    tmp_path: Path, database: Database, bridge: BridgeProcess, scripted_url: str
) -> Iterator[Stack]:
    value, close = make_stack(tmp_path, database, bridge, scripted_url)
    yield value
    close()
