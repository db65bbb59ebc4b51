"""The stack the browser tests drive, with the few API shortcuts they need for set-up."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from agentchat.core.database import Database
from tests.support.api_stack import add_scripted_model


@dataclass
class E2EStack:
    url: str
    database: Database
    scripted_url: str
    http: httpx.Client = field(init=False)
    model_id: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, body: Any = None, expect: int = 200) -> Any:
        response = self.http.request(method, path, json=body)
        assert response.status_code == expect, response.text
        return response.json() if response.content else None

    def register_model(self) -> None:
        self.model_id = add_scripted_model(self.http, self.scripted_url)

    def new_session(self, title: str | None = None) -> int:
        body = {"title": title} if title else {}
        return int(self.call("POST", "/api/chat/sessions", body, expect=201)["sessionId"])

    def start(self, session_id: int, message: str, **extra: Any) -> dict[str, Any]:
        path = f"/api/chat/sessions/{session_id}/runs"
        body = {"message": message, **extra}
        result: dict[str, Any] = self.call("POST", path, body, expect=201)
        return result

    def release(self, gate: str) -> None:
        """Let the scripted model's streams held at `#hold gate` go on."""
        response = self.http.post(f"{self.scripted_url}/_gates/{gate}")
        assert response.status_code == 204, response.text

    def session(self, session_id: int) -> dict[str, Any]:
        result: dict[str, Any] = self.call("GET", f"/api/chat/sessions/{session_id}")
        return result

    def wait_idle(self, session_id: int, timeout: float = 30.0) -> dict[str, Any]:
        """The session once no run is active (polls the API; fails after `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            detail = self.session(session_id)
            if not detail["session"]["hasActiveRun"]:
                return detail
            assert time.monotonic() < deadline, f"session {session_id} still running"
            time.sleep(0.1)
