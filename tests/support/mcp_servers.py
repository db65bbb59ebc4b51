"""The test MCP server (tests/support/mcp_server.py) as the bridge wire and the API take it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.mcp_server import http_app
from tests.support.servers import serve_app

SCRIPT = Path(__file__).with_name("mcp_server.py")


def stdio_server(name: str = "tools", mode: str = "stdio", **fields: Any) -> dict[str, Any]:
    """A stdio server started by the venv's Python (`mode`: stdio, hang, exit)."""
    return {
        "name": name,
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(SCRIPT), mode],
        "approval": "allowed",
        **fields,
    }


def http_server(name: str, url: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "transport": "http", "url": url, "approval": "allowed", **fields}


def setup(*servers: dict[str, Any], use: list[str] | None = None) -> dict[str, Any]:
    """The run request's `mcp`: these servers, all used unless `use` narrows them."""
    names = [s["name"] for s in servers] if use is None else use
    return {"servers": list(servers), "use": names}


@contextmanager
def served_over_http(token: str | None = None) -> Iterator[str]:
    """The test server over streamable HTTP on a loopback port; yields its /mcp URL."""
    url, stop = serve_app(http_app(token))  # type: ignore[arg-type]
    try:
        yield f"{url}/mcp"
    finally:
        stop()
