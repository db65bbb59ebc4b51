"""AGENTCHAT_MODEL_HOSTS_DENY attacked as reported: a denied address written another way, and a
name that resolves to a denied address, must reach nothing, neither from the model test in the
API nor from the agent in a real bridge (hermes-agent)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from agentchat.app import create_app
from agentchat.bridge_client.client import BridgeClient
from agentchat.core.database import Database
from tests.bridge.support import model, run_turn
from tests.models.fake_provider import serve
from tests.security.conftest import client_for, make_settings
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess, start_bridge

pytestmark = pytest.mark.timeout(180)

DENY = "127.0.0.0/8,::1/128,169.254.0.0/16,10.0.0.0/8"
SECRET = "INTERNAL-SECRET-9f3a admin console at /admin"
SPELLINGS = [
    "localhost",
    "a.localhost",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0177.0.0.1",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "0.0.0.0",
    "127.0.0.1.",
    "0xa9fea9fe",
    "169.254.43518",
    "0251.0376.0251.0376",
]


def loopback_name() -> str:
    """A host name (not an address, not `localhost`) that this machine resolves to loopback,
    as /etc/hosts maps its own name; an attacker's DNS can do the same for any name."""
    for name in (socket.gethostname(), socket.getfqdn(), "ip6-localhost", "ip6-loopback"):
        try:
            found = socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)
        except OSError:
            continue
        if name != "localhost" and all(_loopback(entry[4][0]) for entry in found):
            return name
    raise AssertionError("no host name of this machine resolves to loopback")


def _loopback(address: str) -> bool:
    return address.startswith("127.") or address == "::1"


@pytest.fixture(scope="module")
def internal_service() -> Iterator[tuple[str, list[str]]]:
    """A service on 127.0.0.1 the operator wants out of reach; it answers every POST with its
    secret in a JSON error, as many internal services do."""
    hits: list[str] = []
    app = FastAPI()

    @app.post("/{path:path}")
    async def anything(request: Request) -> JSONResponse:
        hits.append(request.url.path)
        return JSONResponse({"error": {"message": SECRET}}, status_code=404)

    with serve(app) as url:
        yield url.rsplit(":", 1)[1], hits


@pytest.fixture
def deny_app(tmp_path: Path, database: Database) -> FastAPI:
    return create_app(make_settings(tmp_path, model_hosts_deny=DENY), database=database)


@pytest.mark.parametrize("host", SPELLINGS)
async def test_a_denied_address_is_refused_however_it_is_written(
    deny_app: FastAPI, host: str
) -> None:
    async with client_for(deny_app) as c:
        body = {"name": "m", "baseUrl": f"http://{host}:8080/v1", "modelName": "gpt"}
        response = await c.post("/api/models", json=body)
    assert response.status_code == 422, (host, response.text)
    assert response.json()["error"]["code"] == "model_host_refused"


async def test_the_model_test_does_not_reach_a_name_that_resolves_to_a_denied_address(
    deny_app: FastAPI, internal_service: tuple[str, list[str]]
) -> None:
    port, hits = internal_service
    name = loopback_name()
    async with client_for(deny_app) as c:
        body = {"name": "m", "baseUrl": f"http://{name}:{port}/v1", "modelName": "gpt"}
        created = await c.post("/api/models", json=body)
        assert created.status_code == 201, created.text  # the name itself is not denied
        before = len(hits)
        result = (await c.post(f"/api/models/{created.json()['id']}/test")).json()
    assert result["ok"] is False
    assert SECRET not in str(result) and "AGENTCHAT_MODEL_HOSTS_DENY" in result["error"]
    assert len(hits) == before


async def test_the_model_test_still_reaches_an_allowed_host(
    tmp_path: Path, database: Database, internal_service: tuple[str, list[str]]
) -> None:
    """The pinned connection keeps the Host header and the rest of the request as they were."""
    port, hits = internal_service
    settings = make_settings(tmp_path, model_hosts_deny="10.0.0.0/8")
    async with client_for(create_app(settings, database=database)) as c:
        body = {"name": "m", "baseUrl": f"http://{loopback_name()}:{port}/v1", "modelName": "g"}
        created = (await c.post("/api/models", json=body)).json()
        result = (await c.post(f"/api/models/{created['id']}/test")).json()
    assert result["ok"] is False and SECRET in result["error"]  # reached: it is allowed
    assert hits[-1] == "/v1/chat/completions"


bridge = own_bridge()


async def _turn(bridge: BridgeProcess, base_url: str, **extra: Any) -> Any:
    async with BridgeClient(bridge.url, secret=bridge.secret) as client:
        return await run_turn(client, base_url, "hello", model=model(base_url), **extra)


async def _assert_denied_turn_reaches_nothing(
    bridge: BridgeProcess, internal_service: tuple[str, list[str]]
) -> tuple[str, int]:
    """A turn whose model host is a name resolving to a denied address fails, says why, and
    leaves no hit on the internal service; the model's base URL and the hits before it."""
    port, hits = internal_service
    base_url = f"http://{loopback_name()}:{port}/v1"
    before = len(hits)
    turn = await _turn(bridge, base_url, modelHosts={"deny": DENY})
    assert turn.result is not None and turn.result.status == "FAILED", turn.result
    assert SECRET not in str(turn.result.model_dump())
    assert "resolves to 127." in (turn.result.error or "")  # the page says why
    assert len(hits) == before
    return base_url, before


async def test_the_agent_does_not_reach_a_name_that_resolves_to_a_denied_address(
    bridge: BridgeProcess, internal_service: tuple[str, list[str]]
) -> None:
    base_url, before = await _assert_denied_turn_reaches_nothing(bridge, internal_service)
    hits = internal_service[1]
    allowed = await _turn(bridge, base_url, modelHosts={"deny": "10.0.0.0/8"})
    assert allowed.result is not None and len(hits) > before  # the same turn, allowed


async def test_a_host_the_http_client_cannot_use_is_a_failed_test_not_a_500(
    tmp_path: Path, database: Database
) -> None:
    async with client_for(create_app(make_settings(tmp_path), database=database)) as c:
        body = {"name": "m", "baseUrl": "http://0177.0.0.1:9/v1", "modelName": "g"}
        created = (await c.post("/api/models", json=body)).json()
        response = await c.post(f"/api/models/{created['id']}/test")
    assert response.status_code == 200, response.text
    assert response.json()["ok"] is False


@pytest.fixture(scope="module")
def proxied_bridge(
    tmp_path_factory: pytest.TempPathFactory, internal_service: tuple[str, list[str]]
) -> Iterator[BridgeProcess]:
    """A bridge whose environment names an HTTP proxy (as many company networks do). The proxy
    here is the internal service itself: whatever goes through it reaches the denied side."""
    proxy = f"http://127.0.0.1:{internal_service[0]}"
    process = start_bridge(
        tmp_path_factory.mktemp("proxied-bridge"), HTTP_PROXY=proxy, HTTPS_PROXY=proxy
    )
    yield process
    process.stop()


async def test_a_proxy_in_the_bridges_environment_does_not_carry_a_denied_model_host(
    proxied_bridge: BridgeProcess, internal_service: tuple[str, list[str]]
) -> None:
    # neither directly nor through the proxy
    await _assert_denied_turn_reaches_nothing(proxied_bridge, internal_service)
