"""Serve the built front end (frontend/ → static/): assets, the page, and the SPA fallback.

The page gets a strict Content-Security-Policy: no inline script, nothing loaded from elsewhere,
so model output that slipped past the sanitiser still could not run or phone home.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from agentchat.web.gzip_assets import GzipCache, compressible
from agentchat.web.headers import CONTENT_SECURITY_POLICY

STATIC_DIR = Path(__file__).parent.parent / "static"

PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
ASSET_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
_API_PREFIXES = ("api", "docs", "redoc", "openapi.json", "assets")

NOT_BUILT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Agent Chat</title></head>
<body><h1>Agent Chat</h1>
<p>The front end is not built yet. Run <code>make run</code> (or
<code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>) and reload this page.</p>
<p>The API is up: see <a href="/docs">/docs</a>.</p></body></html>
"""


class _Assets(StaticFiles):
    """Hashed build assets: cached for good, never sniffed, gzipped for a browser that takes it
    (the page's script is a third of its size so: what a phone on a slow network waits for)."""

    def __init__(self, *, directory: Path) -> None:
        super().__init__(directory=directory)
        self._gzipped = GzipCache()

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if isinstance(response, FileResponse) and compressible(response.path):
            response = await self._gzipped.respond(response, Headers(scope=scope))
        response.headers.update(ASSET_HEADERS)
        if response.status_code == 200:
            response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
        return response


def _is_api_path(path: str) -> bool:
    first = path.lstrip("/").split("/", 1)[0]
    return first in _API_PREFIXES


def _page(static_dir: Path) -> Response:
    index = static_dir / "index.html"
    if index.is_file():
        return FileResponse(index, media_type="text/html", headers=PAGE_HEADERS)
    return HTMLResponse(NOT_BUILT_PAGE, headers=PAGE_HEADERS)


def _static_file(static_dir: Path, path: str) -> Path | None:
    """A top-level file of the build (favicon.ico, robots.txt); never outside the folder."""
    if not path or "/" in path or path.startswith("."):
        return None
    candidate = (static_dir / path).resolve()
    root = static_dir.resolve()
    return candidate if candidate.parent == root and candidate.is_file() else None


def mount_frontend(app: FastAPI, static_dir: Path) -> None:
    """Serve /assets/*, the page at / and every non-API path (SPA routes such as /chat/12).

    Call after the API routers: /api/*, /docs and /openapi.json stay the API's, and an unknown
    /api path keeps its JSON 404.
    """
    assets = static_dir / "assets"
    if assets.is_dir():
        app.mount("/assets", _Assets(directory=assets), name="assets")

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        return _page(static_dir)

    @app.get("/{path:path}", include_in_schema=False)
    async def spa(path: str, request: Request) -> Response:
        if _is_api_path(path):
            raise StarletteHTTPException(status_code=404, detail="Not Found")
        found = _static_file(static_dir, path)
        if found is not None and found.name != "index.html":
            return FileResponse(found, headers=ASSET_HEADERS)
        return _page(static_dir)
