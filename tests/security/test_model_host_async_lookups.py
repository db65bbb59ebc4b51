"""The bridge's host guard holds for async model clients too, on whichever event loop they run:
uvloop resolves names in libuv, not through `socket.getaddrinfo`, so a guard on that alone let
an async client (hermes' auxiliary clients, httpx.AsyncClient) reach a name that resolves to a
denied address."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import httpx
import pytest
import uvloop
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

from agentchat.bridge.guards import hosts as host_guard
from agentchat.protocol.host_policy import HostPolicy
from tests.models.fake_provider import serve
from tests.security.test_model_host_addresses import loopback_name

DENY = HostPolicy(deny_list="127.0.0.0/8,::1/128")
LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,
}


@pytest.fixture(scope="module")
def internal_port() -> Iterator[str]:
    app = FastAPI()

    @app.get("/")
    async def secret() -> PlainTextResponse:
        return PlainTextResponse("INTERNAL")

    with serve(app) as url:
        yield url.rsplit(":", 1)[1]


async def _fetch(url: str) -> str:
    async with httpx.AsyncClient(timeout=5, trust_env=False) as client:
        return (await client.get(url)).text


@pytest.mark.parametrize("loop_name", sorted(LOOPS))
def test_an_async_client_does_not_reach_a_denied_address(
    loop_name: str, internal_port: str
) -> None:
    host_guard.install()
    name = loopback_name()
    url = f"http://{name}:{internal_port}/"
    loop = LOOPS[loop_name]()
    try:
        assert loop.run_until_complete(_fetch(url)) == "INTERNAL"  # reachable when not guarded
        with host_guard.guarding({name}, DENY), pytest.raises(httpx.ConnectError) as refused:
            loop.run_until_complete(_fetch(url))
        assert host_guard.refusal_in(refused.value) is not None
        assert loop.run_until_complete(_fetch(url)) == "INTERNAL"  # the guard ends with the turn
    finally:
        loop.close()
