"""Host allow-list (DNS rebinding) and Origin check (a page on another site) → 403; CORS only
for configured origins."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.web.bind_rules import hostname
from agentchat.web.security import origin_authority
from tests.security.conftest import TOKEN, client_for, make_settings


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost:8000", "127.0.0.1:1", "[::1]:8000", "LOCALHOST", "localhost."]
)
async def test_loopback_names_are_allowed(client: httpx.AsyncClient, host: str) -> None:
    response = await client.get("/api/health", headers={"Host": host})
    assert response.status_code == 200, response.text


async def test_testserver_is_not_a_default_host(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/health", headers={"Host": "testserver"})
    assert response.status_code == 403


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil", ""]
)
async def test_other_host_names_get_403(client: httpx.AsyncClient, host: str) -> None:
    for path in ("/api/health", "/api/models", "/"):
        response = await client.get(path, headers={"Host": host})
        assert response.status_code == 403, (host, path)
        assert response.json()["error"]["code"] == "forbidden"


async def test_a_rebinding_name_cannot_write(client: httpx.AsyncClient) -> None:
    body = {"name": "x", "baseUrl": "http://127.0.0.1:9/v1", "modelName": "m"}
    response = await client.post("/api/models", json=body, headers={"Host": "attacker.example"})
    assert response.status_code == 403
    assert (await client.get("/api/models")).json() == []


async def test_configured_host_and_allowed_hosts_are_added(
    tmp_path: Path, database: Database
) -> None:
    settings = make_settings(
        tmp_path, host="chat.lan", allowed_hosts="agents.example.org", auth_token=TOKEN
    )
    async with client_for(create_app(settings, database=database)) as c:
        for host, status in [
            ("chat.lan:8000", 200),
            ("agents.example.org", 200),
            ("127.0.0.1", 403),  # allowed_hosts replaces the default list
            ("evil.example", 403),
        ]:
            response = await c.get("/api/health", headers={"Host": host})
            assert response.status_code == status, host


async def test_a_star_allows_any_host(tmp_path: Path, database: Database) -> None:
    settings = make_settings(tmp_path, allowed_hosts="*")
    async with client_for(create_app(settings, database=database)) as c:
        response = await c.get("/api/health", headers={"Host": "anything.example"})
        assert response.status_code == 200


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("127.0.0.1", "http://127.0.0.1"),
        ("localhost:5173", "http://localhost:5173"),
        ("localhost", "http://localhost:80"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000/"),
        ("[::1]:8000", "http://[::1]:8000"),
    ],
)
async def test_same_origin_requests_pass(client: httpx.AsyncClient, host: str, origin: str) -> None:
    response = await client.get("/api/models", headers={"Host": host, "Origin": origin})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "http://127.0.0.1.evil.example",
        "http://127.0.0.1:8080",
        "https://127.0.0.1",  # same host, another scheme: another origin
        "null",
        "file://",
        "garbage",
        "http://127.0.0.1:notaport",
    ],
)
async def test_other_origins_get_403_on_the_api(client: httpx.AsyncClient, origin: str) -> None:
    for method, path in [
        ("GET", "/api/models"),
        ("GET", "/api/chat/stream?runs=r1&lastEventIds=0"),
        ("POST", "/api/chat/sessions"),
    ]:
        response = await client.request(method, path, json={}, headers={"Origin": origin})
        assert response.status_code == 403, (origin, path)
        assert "another site" in response.json()["error"]["message"]


async def test_a_cross_site_page_cannot_start_anything(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/chat/sessions", json={}, headers={"Origin": "https://evil.example"}
    )
    assert response.status_code == 403
    listing = await client.get("/api/chat/sessions")
    assert listing.json()["items"] == []


async def test_no_cors_headers_unless_configured(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/models", headers={"Origin": "http://127.0.0.1"})
    assert not [h for h in response.headers if h.lower().startswith("access-control-")]
    preflight = await client.options(
        "/api/models",
        headers={"Origin": "http://app.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers


async def test_configured_cors_origin_is_allowed_with_a_token(
    tmp_path: Path, database: Database
) -> None:
    settings = make_settings(tmp_path, cors_origins="http://app.example", auth_token=TOKEN)
    async with client_for(create_app(settings, database=database)) as c:
        preflight = await c.options(
            "/api/models",
            headers={
                "Origin": "http://app.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "http://app.example"
        headers = {"Origin": "http://app.example", "Authorization": f"Bearer {TOKEN}"}
        response = await c.get("/api/models", headers=headers)
        assert response.status_code == 200
        assert response.headers["access-control-allow-origin"] == "http://app.example"
        assert response.headers["access-control-allow-credentials"] == "true"
        no_token = await c.get("/api/models", headers={"Origin": "http://app.example"})
        assert no_token.status_code == 401
        other = await c.get("/api/models", headers={**headers, "Origin": "http://evil.example"})
        assert other.status_code == 403
        assert "access-control-allow-origin" not in other.headers


def test_hostname_and_origin_parsing() -> None:
    assert hostname("Example.COM:8000") == "example.com"
    assert hostname("[::1]:8000") == "::1"
    assert hostname("::1") == "::1"
    assert hostname("localhost.") == "localhost"
    assert origin_authority("https://Example.com:443") == "example.com"
    assert origin_authority("http://example.com:8080") == "example.com:8080"
    assert origin_authority("http://[::1]:8000") == "[::1]:8000"
    assert origin_authority("null") is None
    assert origin_authority("http://example.com/path") is None
