"""The built front end served by the API: page, assets, SPA fallback, API paths untouched."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import APIRouter, FastAPI

from agentchat.web.error_handlers import install_api_error_handlers
from agentchat.web.frontend import CONTENT_SECURITY_POLICY, mount_frontend

INDEX = (
    '<!doctype html><html><head><script type="module" src="/assets/app-1.js"></script>'
    '</head><body><div id="app"></div></body></html>'
)
SPA_PATHS = ["/", "/chat", "/chat/42", "/models", "/skills", "/some/unknown/page"]


def _build(root: Path) -> Path:
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "assets" / "app-1.js").write_text("console.log('app')")
    (root / "assets" / "app-1.css").write_text("body{}")
    (root / "favicon.ico").write_bytes(b"\x00\x01")
    return root


def _app(static_dir: Path) -> FastAPI:
    app = FastAPI()
    install_api_error_handlers(app)
    api = APIRouter()

    @api.get("/api/things")
    def things() -> list[int]:
        return [1, 2]

    app.include_router(api)
    mount_frontend(app, static_dir)
    return app


async def _client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture
async def built(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for c in _client(_app(_build(tmp_path / "static"))):
        yield c


@pytest.fixture
async def unbuilt(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for c in _client(_app(tmp_path / "missing")):
        yield c


def _assert_page_headers(response: httpx.Response) -> None:
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("path", SPA_PATHS)
async def test_spa_routes_serve_the_page_with_security_headers(
    built: httpx.AsyncClient, path: str
) -> None:
    response = await built.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.text == INDEX
    _assert_page_headers(response)


async def test_csp_forbids_inline_script_and_remote_loads() -> None:
    directives = dict(d.strip().split(" ", 1) for d in CONTENT_SECURITY_POLICY.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["default-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["img-src"] == "'self' data:"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"


async def test_assets_are_served_with_long_cache(built: httpx.AsyncClient) -> None:
    response = await built.get("/assets/app-1.js")
    assert response.status_code == 200
    assert response.text == "console.log('app')"
    assert "javascript" in response.headers["content-type"]
    assert "immutable" in response.headers["cache-control"]
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_missing_asset_is_a_404_not_the_page(built: httpx.AsyncClient) -> None:
    response = await built.get("/assets/nope.js")
    assert response.status_code == 404
    assert '<div id="app">' not in response.text


async def test_top_level_build_files_are_served(built: httpx.AsyncClient) -> None:
    response = await built.get("/favicon.ico")
    assert response.status_code == 200
    assert response.content == b"\x00\x01"


async def test_path_traversal_gets_the_page_not_a_file(built: httpx.AsyncClient) -> None:
    response = await built.get("/..%2F..%2Fetc%2Fpasswd")
    assert response.status_code == 200
    assert response.text == INDEX


async def test_api_routes_stay_the_apis(built: httpx.AsyncClient) -> None:
    assert (await built.get("/api/things")).json() == [1, 2]
    unknown = await built.get("/api/does-not-exist")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "not_found"
    for path in ("/docs", "/openapi.json"):
        response = await built.get(path)
        assert response.status_code == 200, path
        assert INDEX not in response.text


async def test_without_a_build_the_page_says_how_to_build(unbuilt: httpx.AsyncClient) -> None:
    for path in ("/", "/chat/3"):
        response = await unbuilt.get(path)
        assert response.status_code == 200
        assert "make run" in response.text
        _assert_page_headers(response)
    assert (await unbuilt.get("/api/x")).status_code == 404


async def test_mounted_on_the_real_app_keeps_api_json(app: FastAPI, tmp_path: Path) -> None:
    mount_frontend(app, _build(tmp_path / "static"))
    async for c in _client(app):
        assert (await c.get("/openapi.json")).json()["info"]["title"] == "Agent Chat"
        missing = await c.get("/api/chat/nothing-here")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"
        assert "text/html" in (await c.get("/chat/1")).headers["content-type"]


SCRIPT = "".join(f"export function f{n}(a, b) {{ return a * {n} + b; }}\n" for n in range(600))


async def _raw(client: httpx.AsyncClient, path: str, **headers: str) -> httpx.Response:
    """The response as the server sent it (httpx would undo the gzip)."""
    async with client.stream("GET", path, headers=headers) as response:
        response._content = b"".join([part async for part in response.aiter_raw()])
    return response


@pytest.fixture
async def big_script(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    root = _build(tmp_path / "static")
    (root / "assets" / "index-abc.js").write_text(SCRIPT)
    (root / "assets" / "logo-abc.png").write_bytes(b"\x89PNG" + bytes(4000))
    async for c in _client(_app(root)):
        yield c


async def test_a_browser_that_takes_gzip_gets_the_script_compressed(
    big_script: httpx.AsyncClient,
) -> None:
    """The page's script is 550 kB as built and 170 kB gzipped: a phone on a slow network
    waited for the 550."""
    zipped = await _raw(big_script, "/assets/index-abc.js", **{"Accept-Encoding": "gzip, br"})
    assert zipped.status_code == 200
    assert zipped.headers["content-encoding"] == "gzip"
    assert gzip.decompress(zipped.content).decode() == SCRIPT
    assert len(zipped.content) < len(SCRIPT) / 4
    assert "javascript" in zipped.headers["content-type"]
    assert "immutable" in zipped.headers["cache-control"]
    assert zipped.headers["vary"] == "Accept-Encoding"
    assert zipped.headers["x-content-type-options"] == "nosniff"

    plain = await _raw(big_script, "/assets/index-abc.js", **{"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.content.decode() == SCRIPT
    assert plain.headers["vary"] == "Accept-Encoding"
    assert plain.headers["etag"] != zipped.headers["etag"]  # two representations

    again = await _raw(
        big_script,
        "/assets/index-abc.js",
        **{"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["etag"]},
    )
    assert again.status_code == 304 and again.content == b""


async def test_gzip_refused_by_q_0_images_and_tiny_files_go_as_they_are(
    big_script: httpx.AsyncClient,
) -> None:
    refused = await _raw(big_script, "/assets/index-abc.js", **{"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers
    image = await _raw(big_script, "/assets/logo-abc.png", **{"Accept-Encoding": "gzip"})
    assert "content-encoding" not in image.headers and len(image.content) == 4004
    tiny = await _raw(big_script, "/assets/app-1.js", **{"Accept-Encoding": "gzip"})
    assert "content-encoding" not in tiny.headers and tiny.content == b"console.log('app')"
