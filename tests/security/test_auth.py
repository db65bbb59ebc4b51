"""With AGENTCHAT_AUTH_TOKEN set every /api route and stream demands it (Bearer or cookie)."""

from __future__ import annotations

import re

import anyio
import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.routing import Route

from agentchat.accounts.sign_in_sessions import MemorySessions
from agentchat.web.auth import PUBLIC_API_PATHS, is_authenticated
from tests.security.conftest import TOKEN, client_for

BEARER = {"Authorization": f"Bearer {TOKEN}"}


def _auth(status: dict[str, object]) -> dict[str, object]:
    """The two fields of the token's status (accounts add theirs beside)."""
    return {k: status[k] for k in ("authRequired", "authenticated")}


def guarded_requests(app: FastAPI) -> list[tuple[str, str, bool]]:
    """(method, concrete path, is a stream) for every /api operation of the app but the public
    ones, read from the app itself (its OpenAPI paths and its top-level routes), so new routes
    are covered without touching this test."""
    operations = {
        (method.upper(), path) for path, item in app.openapi()["paths"].items() for method in item
    }
    for route in app.routes:
        if isinstance(route, APIRoute | Route):
            operations.update((method, route.path) for method in route.methods or ())
    found = []
    for method, path in sorted(operations):
        if path.startswith("/api") and path not in PUBLIC_API_PATHS:
            concrete = re.sub(r"\{[^}]+\}", "1", path)
            found.append((method, concrete, "stream" in path))
    return found


def test_every_api_route_is_enumerated(token_app: FastAPI) -> None:
    paths = {path for _, path, _ in guarded_requests(token_app)}
    assert len(paths) >= 20
    assert {"/api/models", "/api/chat/runs/1/stream", "/api/chat/stream"} <= paths


async def test_every_api_route_refuses_a_request_without_the_token(
    token_app: FastAPI, token_client: httpx.AsyncClient
) -> None:
    for method, path, _ in guarded_requests(token_app):
        response = await token_client.request(method, path, json={})
        assert response.status_code == 401, (method, path, response.text)
        assert response.json()["error"]["code"] == "unauthorized"
        assert response.headers["www-authenticate"] == "Bearer"


async def test_every_api_route_refuses_a_wrong_token(
    token_app: FastAPI, token_client: httpx.AsyncClient
) -> None:
    wrong: list[tuple[bytes, bytes]] = [
        (b"authorization", f"Bearer {TOKEN}x".encode()),
        (b"authorization", f"Bearer {TOKEN[:-1]}".encode()),
        (b"authorization", f"Basic {TOKEN}".encode()),
        (b"authorization", TOKEN.encode()),
        (b"cookie", f"agentchat_token={TOKEN}".encode()),  # the cookie holds a session id
        (b"authorization", "Bearer ünïcode".encode()),
    ]
    for method, path, _ in guarded_requests(token_app):
        for pair in wrong:
            response = await token_client.request(method, path, headers=[pair])
            assert response.status_code == 401, (method, path, pair)


async def test_every_route_accepts_the_token(
    token_app: FastAPI, token_client: httpx.AsyncClient
) -> None:
    async with token_app.router.lifespan_context(token_app):
        for method, path, _ in guarded_requests(token_app):
            with anyio.fail_after(10):
                response = await token_client.request(method, path, json={}, headers=BEARER)
            assert response.status_code not in (401, 403, 500), (method, path, response.text)


async def test_unknown_api_paths_need_the_token_too(token_client: httpx.AsyncClient) -> None:
    response = await token_client.get("/api/does-not-exist")
    assert response.status_code == 401
    authorised = await token_client.get("/api/does-not-exist", headers=BEARER)
    assert authorised.status_code == 404


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/redoc"])
async def test_the_api_documents_need_the_token(token_client: httpx.AsyncClient, path: str) -> None:
    assert (await token_client.get(path)).status_code == 401
    assert (await token_client.get(path, headers=BEARER)).status_code == 200


async def test_bearer_token_opens_the_api(token_client: httpx.AsyncClient) -> None:
    response = await token_client.get("/api/models", headers=BEARER)
    assert response.status_code == 200
    lower_scheme = await token_client.get(
        "/api/models", headers={"Authorization": f"bearer {TOKEN}"}
    )
    assert lower_scheme.status_code == 200


async def test_health_status_and_the_page_stay_public(token_client: httpx.AsyncClient) -> None:
    assert (await token_client.get("/api/health")).status_code == 200
    status = await token_client.get("/api/auth/status")
    assert _auth(status.json()) == {"authRequired": True, "authenticated": False}
    assert (await token_client.get("/")).status_code != 401
    assert (await token_client.get("/assets/index.js")).status_code != 401


async def test_login_sets_an_http_only_strict_cookie_that_opens_the_api(
    token_client: httpx.AsyncClient,
) -> None:
    wrong = await token_client.post("/api/auth/login", json={"token": "nope"})
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "unauthorized"
    assert "set-cookie" not in wrong.headers

    response = await token_client.post("/api/auth/login", json={"token": TOKEN})
    assert response.status_code == 200
    assert _auth(response.json()) == {"authRequired": True, "authenticated": True}
    cookie = response.headers["set-cookie"]
    session_id = token_client.cookies["agentchat_token"]
    assert cookie.startswith(f"agentchat_token={session_id};") and len(session_id) >= 40
    assert TOKEN not in cookie
    for attribute in ("HttpOnly", "SameSite=strict", "Path=/", "Max-Age="):
        assert attribute.lower() in cookie.lower()

    assert (await token_client.get("/api/models")).status_code == 200
    status = await token_client.get("/api/auth/status")
    assert _auth(status.json()) == {"authRequired": True, "authenticated": True}


async def test_logout_clears_the_cookie(token_client: httpx.AsyncClient) -> None:
    response = await token_client.post("/api/auth/logout")
    assert response.status_code == 204
    cookie = response.headers["set-cookie"]
    assert cookie.startswith('agentchat_token="";') or cookie.startswith("agentchat_token=;")
    assert "max-age=0" in cookie.lower()


async def test_login_is_not_needed_without_a_token(client: httpx.AsyncClient) -> None:
    status = await client.get("/api/auth/status")
    assert _auth(status.json()) == {"authRequired": False, "authenticated": True}
    login = await client.post("/api/auth/login", json={"token": "anything"})
    assert _auth(login.json()) == {"authRequired": False, "authenticated": True}
    assert "set-cookie" not in login.headers
    assert (await client.get("/api/models")).status_code == 200


async def test_streams_demand_the_token(token_app: FastAPI) -> None:
    async with client_for(token_app) as c:
        for path in ("/api/chat/runs/r1/stream", "/api/chat/stream?runs=r1&lastEventIds=0"):
            response = await c.get(path, headers={"Accept": "text/event-stream"})
            assert response.status_code == 401
            assert response.headers["content-type"] == "application/json"


async def test_is_authenticated_reads_header_and_cookie() -> None:
    def scope(*headers: tuple[bytes, bytes]) -> dict[str, object]:
        return {"type": "http", "headers": list(headers)}

    sessions = MemorySessions(ttl_s=60)
    session_id = await sessions.create()
    bearer = scope((b"authorization", f"Bearer {TOKEN}".encode()))
    assert await is_authenticated(bearer, TOKEN, sessions)
    cookie = f"a=b; agentchat_token={session_id}".encode()
    assert await is_authenticated(scope((b"cookie", cookie)), TOKEN, sessions)
    assert not await is_authenticated(scope(), TOKEN, sessions)
    assert not await is_authenticated(scope((b"cookie", b"agentchat_token=")), TOKEN, sessions)
    await sessions.revoke(session_id)
    assert not await is_authenticated(scope((b"cookie", cookie)), TOKEN, sessions)
