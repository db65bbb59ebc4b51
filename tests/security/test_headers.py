"""Security headers on every response; the CSP on HTML, never twice; streams pass through."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.responses import StreamingResponse

from agentchat.web.headers import CONTENT_SECURITY_POLICY
from agentchat.web.security import install_security
from tests.security.conftest import client_for, make_settings

ALWAYS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


def assert_base_headers(response: httpx.Response) -> None:
    for name, value in ALWAYS.items():
        assert response.headers.get_list(name) == [value], name


def guarded_test_app(tmp_path: Path) -> FastAPI:
    """A bare app behind the same guards, with routes of each kind the headers care about."""
    app = FastAPI()

    @app.get("/test-page", include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse("<!doctype html><p>hi</p>")

    @app.get("/test-own-csp", include_in_schema=False)
    def own_csp() -> HTMLResponse:
        headers = {"Content-Security-Policy": "default-src 'none'", "X-Frame-Options": "SAMEORIGIN"}
        return HTMLResponse("<p>own</p>", headers=headers)

    @app.get("/api/test-stream", include_in_schema=False)
    def stream() -> StreamingResponse:
        async def events() -> AsyncIterator[bytes]:
            for i in range(100):
                yield f"id: {i}\ndata: {i}\n\n".encode()

        return StreamingResponse(events(), media_type="text/event-stream")

    install_security(app, make_settings(tmp_path))
    return app


async def test_json_responses_carry_the_headers_but_no_csp(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/health")
    assert_base_headers(response)
    assert "content-security-policy" not in response.headers


async def test_refusals_carry_the_headers_too(client: httpx.AsyncClient) -> None:
    for response in (
        await client.get("/api/health", headers={"Host": "evil.example"}),
        await client.get("/api/models", headers={"Origin": "http://evil.example"}),
        await client.get("/api/missing"),
        await client.post(
            "/api/models", content=b"\xff", headers={"Content-Type": "application/json"}
        ),
    ):
        assert response.status_code >= 400
        assert_base_headers(response)


async def test_html_gets_the_content_security_policy(tmp_path: Path) -> None:
    async with client_for(guarded_test_app(tmp_path)) as c:
        response = await c.get("/test-page")
    assert_base_headers(response)
    assert response.headers.get_list("content-security-policy") == [CONTENT_SECURITY_POLICY]
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY.split("script-src")[1].split(";")[0]


async def test_headers_already_set_are_not_duplicated(tmp_path: Path) -> None:
    async with client_for(guarded_test_app(tmp_path)) as c:
        response = await c.get("/test-own-csp")
    assert response.headers.get_list("content-security-policy") == ["default-src 'none'"]
    assert response.headers.get_list("x-frame-options") == ["SAMEORIGIN"]
    assert response.headers.get_list("referrer-policy") == ["no-referrer"]


async def test_streamed_responses_pass_through_whole(tmp_path: Path) -> None:
    async with client_for(guarded_test_app(tmp_path)) as c:
        response = await c.get("/api/test-stream")
    assert response.status_code == 200
    assert_base_headers(response)
    assert response.text.count("data: ") == 100
    assert response.text.endswith("id: 99\ndata: 99\n\n")


async def test_the_real_page_has_one_csp_and_every_header(client: httpx.AsyncClient) -> None:
    for path in ("/", "/chat/12"):
        response = await client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        assert_base_headers(response)
        assert response.headers.get_list("content-security-policy") == [CONTENT_SECURITY_POLICY]


async def test_an_unexpected_error_is_json_with_the_security_headers(app: FastAPI) -> None:
    @app.get("/api/test-boom")
    def boom() -> None:
        raise RuntimeError("boom")

    app.router.routes.insert(0, app.router.routes.pop())  # before the page's catch-all
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        response = await c.get("/api/test-boom")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "internal"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
