"""Issue 34 items 7 and 11: a NUL (`%00`) in a request's path or query. `GET /%00` and
`GET /favicon.ico%00.html` answered 500 with a traceback in the log (the page's file lookup
raised `ValueError: embedded null byte`); `q=a%00b` was 422 "out of range" on PostgreSQL and
200 on SQLite and MariaDB. Now every such address gets the same 422 `invalid` error on every
database, before any route or database sees it."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.databases import DIALECTS
from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter

ADDRESSES = [
    "/%00",
    "/favicon.ico%00.html",
    "/chat/%00x",
    "/assets/index%00.js",
    "/api/chat/sessions?q=a%00b",
    "/api/chat/sessions?q=%00",
    "/api/chat/sessions/1%00",
    "/api/models?x=%00",
]


@pytest.fixture(params=DIALECTS)
def server(request: pytest.FixtureRequest, served: ServeStarter, tmp_path: Path) -> Served:
    url = served.fresh_database(request.param, tmp_path, "nul")
    return served.start(tmp_path, "--data-dir", str(tmp_path / "data"), "--database-url", url)


def _get(base: str, address: str) -> tuple[int, bytes]:
    """GET `address` byte for byte (no client normalises or re-encodes it)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        conn.request("GET", address, headers={"Host": "127.0.0.1"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_a_nul_in_the_path_or_query_is_refused_alike_on_every_database(server: Served) -> None:
    for address in ADDRESSES:
        status, body = _get(server.url, address)
        assert status == 422, (address, status, body[:200])
        error = json.loads(body)["error"]
        assert error["code"] == "invalid", (address, error)
        assert "NUL" in error["message"], (address, error)
    status, _ = _get(server.url, "/api/chat/sessions?q=plain")
    assert status == 200
    assert "Traceback" not in server.log()
