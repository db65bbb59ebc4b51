"""A served app with accounts (`team`): the scripted model (thread), a bridge (subprocess), the
API (thread) on SQLite, and people signed in with their own clients; for tests/accounts and
the Tools page's tests (tests/mcp_servers)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.support.api_stack import add_scripted_model, api_settings
from tests.support.servers import BridgeProcess, serve_app
from tests.support.sse import Sse, read_events, until_terminal

PASSWORD = "correct horse battery"


@dataclass
class Person:
    """One signed-in person: an HTTP client carrying their session as a bearer token."""

    name: str
    url: str
    token: str
    id: int
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def post(self, path: str, body: Any = None, expect: int | None = None) -> Any:
        response = self.http.post(path, json=body)
        if expect is not None:
            assert response.status_code == expect, (self.name, path, response.text)
        return response.json() if response.content else None

    def get(self, path: str, expect: int = 200) -> Any:
        response = self.http.get(path)
        assert response.status_code == expect, (self.name, path, response.text)
        return response.json()

    def new_session(self, title: str | None = None) -> int:
        body = {"title": title} if title else {}
        return int(self.post("/api/chat/sessions", body, expect=201)["sessionId"])

    def start(self, session_id: int, message: str) -> dict[str, Any]:
        started: dict[str, Any] = self.post(
            f"/api/chat/sessions/{session_id}/runs", {"message": message}, expect=201
        )
        return started

    def events(self, run_id: str, **kw: Any) -> list[Sse]:
        kw.setdefault("stop", until_terminal)
        headers = {"Authorization": f"Bearer {self.token}"}
        return read_events(f"{self.url}/api/chat/runs/{run_id}/stream", headers=headers, **kw)


@dataclass
class Team:
    url: str
    database: Database
    settings: Settings
    admin: Person
    people: dict[str, Person] = field(default_factory=dict)

    def add(self, name: str, role: str = "user") -> Person:
        body = {"username": name, "password": PASSWORD, "role": role}
        self.admin.post("/api/admin/users", body, expect=201)
        person = sign_in(self.url, name)
        self.people[name] = person
        return person


def sign_in(url: str, name: str, password: str = PASSWORD) -> Person:
    response = httpx.post(
        f"{url}/api/auth/login", json={"username": name, "password": password}, timeout=30
    )
    assert response.status_code == 200, response.text
    token = response.cookies["agentchat_session"]
    return Person(name, url, token, int(response.json()["user"]["id"]))


def first_admin(url: str, scripted: str, name: str = "alice") -> Person:
    """Without accounts the one person registers the model (shared) and adds the first account."""
    with httpx.Client(base_url=url, timeout=30) as single:
        add_scripted_model(single, scripted)
        body = {"username": name, "password": PASSWORD}
        created = single.post("/api/admin/users", json=body)
        assert created.status_code == 201, created.text
        assert created.json()["role"] == "admin"
    return sign_in(url, name)


@pytest.fixture
def team_settings() -> dict[str, Any]:
    """The team's API settings beyond the bridge's and no run rate: a module whose API needs
    others (an agent toolset) overrides this, a test of the run rate parametrizes it."""
    return {}


@pytest.fixture
def team(
    tmp_path: Path,
    database: Database,
    bridge: BridgeProcess,
    scripted_url: str,
    team_settings: dict[str, Any],
) -> Iterator[Team]:
    settings = api_settings(
        tmp_path / "data", bridge, **{"run_rate_per_minute": 0, **team_settings}
    )
    url, stop = serve_app(create_app(settings, database=database))
    value = Team(url, database, settings, first_admin(url, scripted_url))
    try:
        yield value
    finally:
        for person in [value.admin, *value.people.values()]:
            person.http.close()
        stop()
