"""Every bridge gets the same MCP servers: an API in front of two bridges (chats spread over
them by rendezvous hashing); a server added, changed and removed on the Tools page reaches
the turns on both, with no restart."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentchat.app import create_app
from agentchat.bridge_client.client import BridgeClient
from agentchat.core.database import Database
from tests.support.api_stack import add_scripted_model, api_settings
from tests.support.mcp_servers import stdio_server
from tests.support.servers import BridgeProcess, serve_app, start_bridge
from tests.support.sse import read_events, until_terminal

pytestmark = pytest.mark.timeout(300)
ASK = '#tool mcp__tools__env_value {"name": "WHICH"}\n#echo-tool-result'
MAX_CHATS = 16


@pytest.fixture
def bridges(tmp_path: Path) -> Iterator[list[BridgeProcess]]:
    secret = secrets.token_urlsafe(16)
    pair = [start_bridge(tmp_path / f"bridge-{i}", secret=secret) for i in range(2)]
    yield pair
    for bridge in pair:
        bridge.stop()


@pytest.fixture
def api(
    tmp_path: Path, database: Database, bridges: list[BridgeProcess], scripted_url: str
) -> Iterator[httpx.Client]:
    every = ",".join(b.url for b in bridges)  # they share one secret
    settings = api_settings(tmp_path / "data", bridges[0], bridge_url=every, run_rate_per_minute=0)
    url, stop = serve_app(create_app(settings, database=database))
    with httpx.Client(base_url=url, timeout=30) as http:
        add_scripted_model(http, scripted_url)
        yield http
    stop()


def answer(http: httpx.Client, chat: int, message: str) -> str:
    started = http.post(f"/api/chat/sessions/{chat}/runs", json={"message": message})
    assert started.status_code == 201, started.text
    url = f"{str(http.base_url).rstrip('/')}/api/chat/runs/{started.json()['runId']}/stream"
    events = read_events(url, stop=until_terminal)
    assert events[-1].event == "workflow_complete", events[-1].data
    return str(events[-1].data["finalText"])


async def held(bridge: BridgeProcess) -> dict[str, str]:
    async with BridgeClient(bridge.url, bridge.secret) as client:
        return {s.name: s.state for s in await client.mcp_status()}


async def test_a_change_reaches_the_turns_on_every_bridge(
    api: httpx.Client, bridges: list[BridgeProcess]
) -> None:
    created = api.post("/api/mcp/servers", json=stdio_server(env={"WHICH": "uno1"}))
    assert created.status_code == 201, created.text
    chats: list[int] = []
    while [await held(b) for b in bridges] != [{"tools": "connected"}] * 2:
        assert len(chats) < MAX_CHATS, "the chats never reached both bridges"
        chats.append(int(api.post("/api/chat/sessions", json={}).json()["sessionId"]))
        assert "uno1" in answer(api, chats[-1], ASK)

    change = api.patch(f"/api/mcp/servers/{created.json()['id']}", json={"env": {"WHICH": "dos2"}})
    assert change.status_code == 200, change.text
    for chat in chats:
        assert "dos2" in answer(api, chat, ASK)
    (state,) = api.get("/api/mcp/status").json()
    assert state["state"] == "connected"

    assert api.delete(f"/api/mcp/servers/{created.json()['id']}").status_code == 204
    for chat in chats:
        assert "mcp__tools__" not in answer(api, chat, "#echo-tools")
    assert [await held(b) for b in bridges] == [{}, {}]
