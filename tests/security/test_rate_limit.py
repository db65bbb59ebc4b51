"""Run starts and regenerations: at most N a minute per client IP → 429 with Retry-After."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.protocol.errors import NotFound
from agentchat.web.ratelimit import TokenBucket, limited_kind
from tests.security.conftest import TOKEN, client_for, make_settings

RATE = 3
RUN_BODY = {"message": "hi"}


class NoRuns:
    """Stands in for the run service: every run start is a 404, counted."""

    def __init__(self) -> None:
        self.calls = 0

    async def start(self, session_id: int, body: object) -> None:
        self.calls += 1
        raise NotFound(f"Session {session_id} not found")

    async def regenerate(self, message_id: int) -> None:
        self.calls += 1
        raise NotFound(f"Message {message_id} not found")


def limited_app(tmp_path: Path, database: Database, **overrides: object) -> FastAPI:
    app = create_app(make_settings(tmp_path, run_rate_per_minute=RATE, **overrides), database)
    app.state.runs = NoRuns()
    return app


async def test_run_starts_over_the_rate_get_429_with_retry_after(
    tmp_path: Path, database: Database
) -> None:
    app = limited_app(tmp_path, database)
    async with client_for(app) as c:
        statuses = [
            (await c.post("/api/chat/sessions/1/runs", json=RUN_BODY)).status_code
            for _ in range(RATE)
        ]
        assert statuses == [404] * RATE
        refused = await c.post("/api/chat/sessions/2/runs", json=RUN_BODY)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "too_many_requests"
        assert 1 <= int(refused.headers["retry-after"]) <= 60 // RATE
        again = await c.post("/api/chat/messages/5/regenerate")
        assert again.status_code == 429  # regenerate draws from the same bucket
    assert app.state.runs.calls == RATE


async def test_regenerate_alone_is_limited(tmp_path: Path, database: Database) -> None:
    app = limited_app(tmp_path, database)
    async with client_for(app) as c:
        statuses = [(await c.post("/api/chat/messages/1/regenerate")).status_code for _ in range(5)]
    assert statuses == [404, 404, 404, 429, 429]


async def test_the_limit_is_per_client_address(tmp_path: Path, database: Database) -> None:
    app = limited_app(tmp_path, database)
    async with client_for(app, client=("10.0.0.1", 1000)) as first:
        for _ in range(RATE):
            await first.post("/api/chat/messages/1/regenerate")
        assert (await first.post("/api/chat/messages/1/regenerate")).status_code == 429
    async with client_for(app, client=("10.0.0.2", 1000)) as second:
        assert (await second.post("/api/chat/messages/1/regenerate")).status_code == 404


async def test_other_requests_are_not_limited(tmp_path: Path, database: Database) -> None:
    app = limited_app(tmp_path, database)
    async with client_for(app) as c:
        for _ in range(RATE * 3):
            assert (await c.get("/api/chat/sessions")).status_code == 200
            assert (await c.post("/api/chat/sessions/1/stop")).status_code != 429


async def test_zero_turns_the_limit_off(tmp_path: Path, database: Database) -> None:
    app = create_app(make_settings(tmp_path, run_rate_per_minute=0), database)
    app.state.runs = NoRuns()
    async with client_for(app) as c:
        for _ in range(50):
            assert (await c.post("/api/chat/messages/1/regenerate")).status_code == 404


async def test_wrong_token_guesses_are_limited(tmp_path: Path, database: Database) -> None:
    app = limited_app(tmp_path, database, auth_token=TOKEN)
    async with client_for(app) as c:
        guesses = [
            (await c.post("/api/auth/login", json={"token": f"guess-{i}"})).status_code
            for i in range(RATE + 1)
        ]
        assert guesses == [401] * RATE + [429]
        # An unauthenticated caller cannot spend the run budget of anyone.
        assert (await c.post("/api/chat/messages/1/regenerate")).status_code == 401
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        assert (await c.post("/api/chat/messages/1/regenerate", headers=bearer)).status_code == 404


def test_token_bucket_refills_with_time() -> None:
    now = [1000.0]
    bucket = TokenBucket(6, clock=lambda: now[0])  # one token every 10 s
    assert [bucket.take("a") for _ in range(6)] == [0.0] * 6
    assert bucket.take("a") == 10.0
    now[0] += 5
    assert bucket.take("a") == 5.0
    now[0] += 5
    assert bucket.take("a") == 0.0
    assert bucket.take("b") == 0.0
    now[0] += 3600
    assert [bucket.take("a") for _ in range(7)][-2:] == [0.0, 10.0]  # never more than capacity


def test_only_run_starts_and_logins_are_limited() -> None:
    def kind(method: str, path: str) -> str | None:
        return limited_kind({"type": "http", "method": method, "path": path})

    assert kind("POST", "/api/chat/sessions/12/runs") == "run"
    assert kind("POST", "/api/chat/messages/3/regenerate") == "run"
    assert kind("POST", "/api/auth/login") == "login"
    assert kind("GET", "/api/chat/sessions/12/runs") is None
    assert kind("POST", "/api/chat/sessions/12/runs/x") is None
    assert kind("POST", "/api/chat/sessions") is None
